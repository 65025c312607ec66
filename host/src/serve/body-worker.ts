/**
 * The thread that reads one large HTTP request body of `mep serve --http` (body-off-thread.ts
 * starts it, with its own heap limit): a body's parsed values cost the heap up to ~20× its bytes
 * (64 MiB of `[{},{},…]` is 1.4 GB), and collecting them on the server's thread paused every
 * client. Here the body is decoded, parsed as the host parses messages (in slices, numbers
 * checked, stopped once the heap nears its limit), and its params decoded with the method's schema; what goes back to the server is
 * the envelope's primitives, the params' small members as values, and each large member of
 * params the host only forwards (generate, validate, transform) as the text `JSON.stringify`
 * writes, so the server holds one string per member, not its values. The thread ends after one
 * body: its heap goes with it.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { countValuesUpTo } from '../framing/json-sliced-stringify.ts';
import { decodeParams } from '../protocol/decode.ts';
import { isMepError } from '../protocol/errors.ts';
import { Method, MethodSchemas } from '../protocol/index.ts';
import { parseJsonSliced } from '../protocol/json-sliced.ts';
import { refuseDeepRequest } from './deep-request.ts';
import type { BodyFromWorker, WrittenMember } from './body-off-thread.ts';

/** The methods whose params are decoded here, each with its schema in {@link MethodSchemas}. */
const DECODED_HERE = new Set<string>([Method.Initialize, Method.BackendGenerate, Method.FrontendCompile, Method.ValidatorValidate, Method.TransformTransform]);
/** Methods whose large params members the host forwards without reading (but `ir`'s version, which JsonText gives). */
const FORWARDED = new Set<string>([Method.BackendGenerate, Method.ValidatorValidate, Method.TransformTransform]);
/** A member of at least this many values goes back as its text. */
const WRITTEN_FROM_VALUES = 4096;

const primitive = (value: unknown): value is string | number | boolean | null => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** The value's kind and its top-level primitive members' texts, as JsonText keeps them. */
function written(value: unknown): WrittenMember {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as 'object');
  const members: [string, string][] = [];
  if (kind === 'object') for (const [key, member] of Object.entries(value as object)) if (primitive(member)) members.push([key, JSON.stringify(member)]);
  return { text: JSON.stringify(value), kind, members };
}

/**
 * The share of this thread's heap limit past which the parse is stopped: near its limit V8
 * collects again and again before it gives up (a 64 MiB body of empty objects held a 1 GiB
 * worker for minutes), so the parse goes in slices and the heap is looked at between them.
 */
const HEAP_SHARE = 0.75;
const WATCH_MS = 20;

/** Parses `text` as the host parses messages, stopped with {@link HeapLimitReached} once the heap passes its share. */
async function parseWatched(text: string): Promise<unknown> {
  const stop = new AbortController();
  const limit = getHeapStatistics().heap_size_limit * HEAP_SHARE;
  const watch = setInterval(() => {
    const used = getHeapStatistics().used_heap_size;
    if (used > limit) stop.abort(new HeapLimitReached(used));
  }, WATCH_MS);
  try {
    return await parseJsonSliced(text, { signal: stop.signal });
  } finally {
    clearInterval(watch);
  }
}

class HeapLimitReached extends Error {
  constructor(readonly usedBytes: number) {
    super(`the body's values passed ${HEAP_SHARE * 100} % of the worker's heap`);
  }
}

/** What the server needs of one body, or why it is refused. */
export async function readBody(bytes: Uint8Array): Promise<BodyFromWorker> {
  let message: unknown;
  const text = new TextDecoder().decode(bytes);
  // Unread: nothing below (the parse's consumers, the schema, JSON.stringify) may meet a depth
  // that overflows this thread's stack (300,000 levels did: -32603, id null).
  const deep = refuseDeepRequest(text, 'request body');
  if (deep) return { ok: false, deep: { id: deep.id, error: deep.error.toJSON() } };
  try {
    message = await parseWatched(text);
  } catch (error) {
    if (error instanceof HeapLimitReached) return { ok: false, heapUsedBytes: error.usedBytes };
    return { ok: false, parse: (error as Error).message };
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return { ok: true, object: false };
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  const envelope = {
    ...(primitive(jsonrpc) ? { jsonrpc } : {}),
    ...('id' in message ? { id: primitive(id) ? id : { invalid: true } } : {}),
    ...(primitive(method) ? { method } : {}),
  };
  const schema = typeof method === 'string' && DECODED_HERE.has(method) ? MethodSchemas[method as keyof typeof MethodSchemas].params : undefined;
  if (schema === undefined) return { ok: true, object: true, envelope };
  let decoded: Record<string, unknown>;
  try {
    decoded = decodeParams(schema, params, method as string) as Record<string, unknown>;
  } catch (error) {
    return { ok: true, object: true, envelope, paramsError: isMepError(error) ? error.toJSON() : { code: -32602, message: (error as Error).message } };
  }
  const values: Record<string, unknown> = {};
  const texts: Record<string, WrittenMember> = {};
  for (const [key, member] of Object.entries(decoded)) {
    if (FORWARDED.has(method as string) && typeof member === 'object' && member !== null && countValuesUpTo(member, WRITTEN_FROM_VALUES) >= WRITTEN_FROM_VALUES) texts[key] = written(member);
    else values[key] = member;
  }
  return { ok: true, object: true, envelope, params: { values, texts, decoded: FORWARDED.has(method as string) } };
}

parentPort?.once('message', async (bytes: Uint8Array) => parentPort?.postMessage(await readBody(bytes)));
