/**
 * Errors from an extension with its stack in the author's sources. A Transport wrapper that maps
 * the guest stack of every error response (`error.data.stack`, as the guest PDK sends it, or the
 * stack inside `data.guestMessage` of an exception that left the guest) and of the error the
 * transport closes with (a process's stderr after a crash, such as a throw at load), through the
 * bundle's source map. It never interprets a method. The map is read on the first error that has
 * frames to map, so a session that never fails pays nothing for it, and belongs to this wrapper:
 * nothing of it outlives the session. Reading it is bounded (source-map.ts: its size, and the
 * session's time for it, `HOST_BOUNDS.sourceMapMs`); a map past a bound is dropped and the errors
 * after it say so in `data.sourceMap`, unmapped.
 *
 * What it adds to `data`: `stack` (the mapped text; the original stays as `guestStack`),
 * `frames` (every frame, mapped where it points into the bundle) and `origin` (the first frame
 * in the author's code, the one `mep` prints by default). For a crashed process, `stderr` is
 * mapped line by line instead (the original stays as `guestStderr`) and `exception` is the
 * line Node printed above the stack (`TypeError: …`).
 */
import { isMepError, MepError } from '../../protocol/errors.ts';
import type { JsonRpcMessage, Transport } from '../types.ts';
import { SourceMapLimitError, type SourceMap } from './source-map.ts';
import { mapStack, type MappedStack, type StackMapping } from './stack.ts';

/** Where a wrapped transport's source map comes from: read on first need, undefined when there is none. */
export type SourceMapSource = () => SourceMap | undefined;

/** Options of {@link withSourceMappedErrors}. */
export interface SourceMappedOptions {
  /** Loads the bundle's map; called once, on the first error with a stack. A throw counts as no map. */
  loadMap: SourceMapSource;
  /** Recognises the bundle in a frame; default: the frame's file has the map's `file` as base name. */
  isBundle?: StackMapping['isBundle'];
}

const MAY_HAVE_FRAMES = /(?:^|\n)\s*at .*:\d+|(?:^|\n)(?:file:\/\/)?\/\S+:\d+(?:\n|$)/;

/** Maps one stack text; `dropped` says why the map is no longer used, once a bound stopped it. */
interface Mapper {
  (text: string): MappedStack | undefined;
  dropped?: string;
}

function mapperOf(options: SourceMappedOptions): Mapper {
  let map: SourceMap | undefined | null = null;
  const drop = (error: unknown): undefined => {
    // A map past a bound is dropped for the rest of the session, and the errors say so; a missing
    // or broken one leaves errors as the guest reported them. Neither ever hides an error.
    if (error instanceof SourceMapLimitError) mapper.dropped = `the source map was not used: ${error.message}`;
    map = undefined;
    return undefined;
  };
  const mapper: Mapper = (text) => {
    if (!MAY_HAVE_FRAMES.test(text)) return undefined;
    if (map === null) {
      try {
        map = options.loadMap();
      } catch (error) {
        return drop(error);
      }
    }
    if (map === undefined) return undefined;
    try {
      const mapped = mapStack(text, { map, ...(options.isBundle ? { isBundle: options.isBundle } : {}) });
      return mapped.frames.some((f) => f.mapped) ? mapped : undefined;
    } catch (error) {
      return drop(error);
    }
  };
  return mapper;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const FRAME_LINE = /^\s*at /;

/** What Node printed above the first frame of an uncaught error (`TypeError: …`), if anything. */
function exceptionLine(lines: readonly string[]): string | undefined {
  const first = lines.findIndex((line) => FRAME_LINE.test(line));
  const above = first > 0 ? lines[first - 1] : undefined;
  return above !== undefined && above.trim() !== '' ? above : undefined;
}

/** The message and data of an error with its stack mapped, or undefined when nothing maps. */
function mapDetail(message: string, data: unknown, map: Mapper): { message: string; data: Record<string, unknown> } | undefined {
  if (data !== undefined && !isRecord(data)) return undefined;
  const record = data ?? {};
  const stderr = Array.isArray(record.stderr) && record.stderr.every((l) => typeof l === 'string') ? (record.stderr as string[]) : undefined;
  const text = typeof record.stack === 'string' ? record.stack : typeof record.guestMessage === 'string' ? record.guestMessage : stderr !== undefined ? stderr.join('\n') : message;
  const mapped = map(text);
  if (mapped === undefined) return map.dropped === undefined ? undefined : { message, data: { ...record, sourceMap: map.dropped } };
  const next: Record<string, unknown> = { ...record, frames: mapped.frames, ...(mapped.origin ? { origin: mapped.origin } : {}) };
  if (stderr !== undefined && text !== record.stack && text !== record.guestMessage) {
    next.stderr = mapped.stack.split('\n');
    next.guestStderr = stderr;
    const exception = exceptionLine(stderr);
    if (exception !== undefined) next.exception = exception;
  } else {
    next.stack = mapped.stack;
    next.guestStack = text;
  }
  return { message: map(message)?.stack ?? message, data: next };
}

/** A JSON-RPC error response with its stack mapped; anything else unchanged. */
function mapMessage(message: JsonRpcMessage, map: Mapper): JsonRpcMessage {
  const error = message.error;
  if (!isRecord(error) || typeof error.message !== 'string') return message;
  const detail = mapDetail(error.message, error.data, map);
  return detail ? { ...message, error: { ...error, message: detail.message, data: detail.data } } : message;
}

/** The error a transport closed with, with its stack (or a crashed process's stderr) mapped. */
function mapCloseError(error: MepError | undefined, map: Mapper): MepError | undefined {
  if (error === undefined || !isMepError(error)) return error;
  const detail = mapDetail(error.message, error.data, map);
  return detail ? new MepError(error.code, detail.message, { data: detail.data, cause: error.cause ?? error }) : error;
}

/**
 * One error from an extension with its stack mapped (for failures that do not travel through a
 * transport, such as a raw export call); the error itself when nothing maps.
 */
export function mapExtensionError(error: MepError, options: SourceMappedOptions): MepError {
  try {
    return mapCloseError(error, mapperOf(options)) as MepError;
  } catch {
    // Mapping is a courtesy: the unmapped error is still the right answer.
    return error;
  }
}

/**
 * Wraps `inner` so that errors from the extension carry their stack in the author's sources.
 * Everything else passes through unchanged; mapping never throws, and a message whose stack does
 * not map (no map, foreign frames) is delivered exactly as it came.
 *
 * @example
 * const transport = withSourceMappedErrors(inner, { loadMap: () => parseSourceMap(readFileSync(`${script}.map`, 'utf8')) });
 */
export function withSourceMappedErrors<T extends Transport>(inner: T, options: SourceMappedOptions): T {
  const mapper = mapperOf(options);
  const safe = <V>(value: V, fn: (v: V) => V): V => {
    try {
      return fn(value);
    } catch {
      // Mapping is a courtesy: the unmapped error is still the right answer.
      return value;
    }
  };
  const seen = new WeakMap<object, JsonRpcMessage>();
  const wrapped = Object.create(inner) as T;
  wrapped.onMessage = (listener) =>
    inner.onMessage((message) => {
      if (!('error' in message)) return listener(message);
      let mapped = seen.get(message);
      if (mapped === undefined) {
        mapped = safe(message, (m) => mapMessage(m, mapper));
        seen.set(message, mapped);
      }
      listener(mapped);
    });
  wrapped.onClose = (listener) => inner.onClose((error) => listener(safe(error, (e) => mapCloseError(e, mapper))));
  return wrapped;
}
