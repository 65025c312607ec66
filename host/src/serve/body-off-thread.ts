/**
 * Large request bodies of `mep serve --http` read on a thread of their own (body-worker.ts), not
 * on the server's. A parsed body costs the heap up to ~20× its bytes (64 MiB of `[{},{},…]` is
 * 1.4 GB, 21 million objects), and V8's collector, tracing them on the thread that answers every
 * client, paused them all: another client's `/health` waited 7.4 s. From
 * `HTTP_LIMITS.offThreadFromBytes` a body's bytes are moved (transferred, not copied) to a worker
 * with its own heap limit (`parseHeapBytes`); it parses and decodes them and sends
 * back the envelope, small members, and each large member the host only forwards as one string
 * (a {@link JsonText}). Past its heap limit the worker stops and the client gets ERR_LIMIT; the
 * server is untouched. The worker ends with its body, so its heap is given back. Node only.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode, MepError, ErrorCode } from '../protocol/errors.ts';
import { JsonText, type JsonKind } from '../protocol/json-text.ts';
import { workerEntryBuildOptions } from '../transport/wasm/node/worker-bundle.ts';
import type { JsonRpcId } from '../rpc/index.ts';
import type { DeepRequest } from './deep-request.ts';

/** Body workers running at once (the machine's cores are shared with the sessions); others wait, in order. */
const MAX_PARSE_WORKERS = 2;
/** The prebuilt bundle of body-worker.ts, beside this file in dist/ (npm run build). */
export const PREBUILT_BODY_WORKER = 'body-worker.bundle.js';

/** A large member of params as its JSON text. */
export interface WrittenMember {
  text: string;
  kind: JsonKind;
  members: [string, string][];
}

/** What the worker answers. */
export type BodyFromWorker =
  | { ok: false; parse: string }
  /** Refused unread: it nests deeper than the host reads (deep-request.ts); the id it carried and the wire error. */
  | { ok: false; deep: { id: JsonRpcId | null; error: { code: number; message: string; data?: unknown } } }
  /** The parse was stopped: the heap in use passed its share of the worker's limit. */
  | { ok: false; heapUsedBytes: number }
  | {
      ok: true;
      /** The body is one JSON object. */
      object: boolean;
      /** `jsonrpc`, `id` and `method` when primitive (an id that is not: `{ invalid: true }`). */
      envelope?: Record<string, unknown>;
      /** The params' decoding error (the method's schema refused them). */
      paramsError?: { code: number; message: string; data?: unknown };
      params?: { values: Record<string, unknown>; texts: Record<string, WrittenMember>; decoded: boolean };
    };

/** A body read off the thread: the message (large params members as JsonText), or why it is not one. */
export type OffThreadBody =
  | { parse: string }
  | { deep: DeepRequest }
  | { message: unknown; decoded: boolean; paramsError?: MepError };

let bundled: Promise<URL> | undefined;

/** The worker's URL: the prebuilt bundle, or one bundled here (a checkout). */
function bodyWorkerUrl(): Promise<URL> {
  bundled ??= (async () => {
    const prebuilt = new URL(`./${PREBUILT_BODY_WORKER}`, import.meta.url);
    if (prebuilt.protocol === 'file:' && existsSync(fileURLToPath(prebuilt))) return prebuilt;
    const entry = fileURLToPath(new URL(`./body-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
    const { build } = await import('esbuild');
    const result = await build({ ...workerEntryBuildOptions(entry), write: false });
    return new URL(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0]?.text ?? '').toString('base64')}`);
  })().catch((cause) => {
    bundled = undefined;
    throw new MepError(LocalErrorCode.Build, `Could not prepare the request body worker (${String(cause)}): check that esbuild is installed.`, { cause });
  });
  return bundled;
}

const waiting: (() => void)[] = [];
let running = 0;
const turn = (): Promise<void> => (running < MAX_PARSE_WORKERS ? (running++, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve)));
const done = (): void => {
  const next = waiting.shift();
  if (next) next();
  else running--;
};

/**
 * Reads `bytes` (a whole request body, moved to the worker: unusable here after) on a worker
 * whose heap is at most `heapBytes`. Rejects with ERR_LIMIT past it, with `signal`'s reason
 * when the client leaves.
 */
export async function readBodyOffThread(bytes: Uint8Array, options: { signal: AbortSignal; heapBytes: number }): Promise<OffThreadBody> {
  const { heapBytes } = options;
  const size = bytes.byteLength;
  const url = await bodyWorkerUrl();
  await turn();
  try {
    options.signal.throwIfAborted();
    const answer = await new Promise<BodyFromWorker>((resolve, reject) => {
      const worker = new Worker(url, { resourceLimits: { maxOldGenerationSizeMb: Math.max(16, Math.floor(heapBytes / 2 ** 20)) }, stdout: true, stderr: true });
      const stop = (): void => void worker.terminate();
      const onAbort = (): void => (stop(), reject(options.signal.reason));
      options.signal.addEventListener('abort', onAbort, { once: true });
      const settle = (): void => options.signal.removeEventListener('abort', onAbort);
      worker.once('message', (answer: BodyFromWorker) => (settle(), stop(), resolve(answer)));
      worker.once('error', (error: Error & { code?: string }) => {
        settle();
        stop();
        reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooManyValues(heapBytes, size) : new MepError(ErrorCode.InternalError, `The request body could not be read (${error.message}).`, { cause: error }));
      });
      worker.once('exit', () => (settle(), reject(new MepError(ErrorCode.InternalError, 'The request body worker ended without an answer.'))));
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      worker.postMessage(owned, [owned.buffer as ArrayBuffer]);
    });
    if (!answer.ok && 'heapUsedBytes' in answer) throw tooManyValues(heapBytes, size);
    return fromWorker(answer);
  } finally {
    done();
  }
}

const tooManyValues = (heapBytes: number, bodyBytes: number): MepError =>
  new MepError(LocalErrorCode.Limit, `The request body's values need more than the ${heapBytes} bytes of heap the server reads one body in (parseHeapBytes, mep serve --parse-heap): send a smaller body or split the call, or ask the operator to raise it.`, { data: { limit: 'parseHeapBytes', heapBytes, bodyBytes } });

function fromWorker(answer: Exclude<BodyFromWorker, { heapUsedBytes: number }>): OffThreadBody {
  if (!answer.ok && 'deep' in answer) return { deep: { id: answer.deep.id, error: new MepError(answer.deep.error.code as MepError['code'], answer.deep.error.message, { data: answer.deep.error.data }) } };
  if (!answer.ok) return { parse: answer.parse };
  if (!answer.object) return { message: [], decoded: false };
  const message: Record<string, unknown> = { ...answer.envelope };
  const paramsError = answer.paramsError ? new MepError(answer.paramsError.code as MepError['code'], answer.paramsError.message, { data: answer.paramsError.data }) : undefined;
  if (!answer.params) return { message, decoded: false, ...(paramsError ? { paramsError } : {}) };
  const params: Record<string, unknown> = { ...answer.params.values };
  // Defined, not assigned: a member named `__proto__` stays a plain own member, as JSON.parse makes it.
  for (const [key, member] of Object.entries(answer.params.texts)) Object.defineProperty(params, key, { value: JsonText.ofWritten(member.text, member.kind, member.members), enumerable: true, writable: true, configurable: true });
  message.params = params;
  return { message, decoded: answer.params.decoded };
}
