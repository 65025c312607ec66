/**
 * JSON parsed in slices, for a text a served client or an extension sends while others wait on
 * the same event loop. `JSON.parse` is one uninterruptible call whose time is set by how many
 * values the text holds, not by its bytes: 11 MB of `[{},{},…]` (3.7 million objects) took
 * 2.8 s on the host's main thread, most of it in the collector, and 64 MiB about six times that,
 * during which no other client (not even `/health`) was answered. {@link parseJsonSliced} builds
 * the same value as `parseJson(text, 'data')` in steps of at most {@link SLICE_VALUES} values,
 * giving the event loop a turn between two steps, so the longest stall one message causes is a
 * step, whatever its size or shape; the whole parse stays linear in the text. No I/O.
 */
import { checkNumberToken } from './json-numbers.ts';
import { parseJson } from './json-parse.ts';
import { endOfNumber, endOfSpace, endOfString, isDigit, syntaxError } from './json-text.ts';

/** Values built between two turns of the event loop (a few milliseconds of work). */
export const SLICE_VALUES = 16_384;

/**
 * Texts from this many UTF-16 code units up are parsed in slices ({@link parseJsonMessage}). Below
 * it one JSON.parse holds the loop for at most ~80 ms (1 MiB of `[{},{},…]`; a typical message far
 * less), cheaper than slicing it (the slicer takes 1.0–1.4× JSON.parse's time on a real IR).
 */
export const SLICED_FROM_CHARS = 1024 * 1024;

/**
 * A container, or a run of sibling members or elements, whose text ends within this many
 * characters is built by one `JSON.parse` (several times faster than building it value by value
 * here, and a few ms at most even of `[{},{},…]`); it counts as a quarter of its characters
 * against the slice.
 */
const NATIVE_CHARS = 16 * 1024;

/** Options of {@link parseJsonSliced}. */
export interface SlicedParseOptions {
  /** Values built between two turns of the event loop. Default {@link SLICE_VALUES}. */
  sliceValues?: number;
  /** Containers and runs of siblings ending within this many characters are built by JSON.parse. Default 16 KiB (0: none, every value built here). */
  nativeChars?: number;
  /** Stops the parse at the next turn (the client went away): rejects with the signal's reason. */
  signal?: AbortSignal;
}

interface Frame {
  container: Record<string, unknown> | unknown[];
  /** The member name waiting for its value (objects only). */
  key: string | undefined;
}

// setImmediate where the platform has it (Node: the next turn, after pending I/O); else a timer (an edge worker).
const nextTurn: (resolve: () => void) => void = typeof globalThis.setImmediate === 'function' ? (resolve) => globalThis.setImmediate(resolve) : (resolve) => setTimeout(resolve, 0);
const yieldTurn = (): Promise<void> => new Promise(nextTurn);

/** A string token's value: its characters when it holds no escape, else what JSON makes of them. */
const stringValue = (text: string, start: number, end: number): string => {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (parseJson(text.slice(start, end), 'data') as string) : raw;
};

/** Sets a member as `JSON.parse` does: an own data property, `__proto__` included. */
const setMember = (object: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
};

/**
 * Parses one JSON text into the value `JSON.parse` builds (every key a plain own member, as
 * `parseJson(text, 'data')`), yielding to the event loop every `sliceValues` values. Rejects with
 * a `JsonTextError` (a `SyntaxError`) naming the first problem, its line and column.
 *
 * @example
 * const message = await parseJsonSliced(body, { signal }); // other requests are served meanwhile
 */
export async function parseJsonSliced(text: string, options: SlicedParseOptions = {}): Promise<unknown> {
  const slice = Math.max(1, options.sliceValues ?? SLICE_VALUES);
  const n = text.length;
  const nativeChars = options.nativeChars ?? NATIVE_CHARS;
  const stack: Frame[] = [];
  let budget = slice;
  let i = 0;
  // A look-ahead that found no end within nativeChars is not tried again before the end of its
  // window, so no character is looked ahead at more than twice.
  let lookAfter = 0;

  /**
   * At the first member or element of `frame` (after its opener or a comma): the siblings that
   * end within nativeChars are built by one JSON.parse; then the next member's name is read.
   * True when that closed the container (i is then past its closer).
   */
  const enter = (frame: Frame): boolean => {
    const isObject = !Array.isArray(frame.container);
    while (budget > 0 && i >= lookAfter && nativeChars > 0) {
      const run = siblingsWithin(text, i, nativeChars);
      if (run === undefined || run.end <= i) {
        lookAfter = i + nativeChars;
        break;
      }
      let built: unknown;
      try {
        built = parseJson(isObject ? `{${text.slice(i, run.end)}}` : `[${text.slice(i, run.end)}]`, 'data');
      } catch {
        // Not JSON: read here, for the error naming its line and column.
        lookAfter = run.end;
        break;
      }
      budget -= (run.end - i) >> 2;
      if (isObject) for (const key of Object.keys(built as object)) setMember(frame.container as Record<string, unknown>, key, (built as Record<string, unknown>)[key]);
      else for (const element of built as unknown[]) (frame.container as unknown[]).push(element);
      i = endOfSpace(text, run.end + 1);
      if (run.closed) return true;
    }
    if (isObject) i = readKey(text, i, frame);
    return false;
  };

  let value: unknown;
  let ready = false; // a complete value waits to go into its container
  for (;;) {
    if (!ready) {
      if (--budget <= 0) {
        budget = slice;
        await yieldTurn();
        options.signal?.throwIfAborted();
      }
      // A value starts at i.
      i = endOfSpace(text, i);
      const c = text.charCodeAt(i);
      if ((c === 123 || c === 91) && i >= lookAfter && nativeChars > 0) {
        const end = closeWithin(text, i, nativeChars);
        if (end < 0) lookAfter = i + nativeChars;
        else {
          try {
            value = parseJson(text.slice(i, end), 'data');
            budget -= (end - i) >> 2;
            i = end;
            ready = true;
            continue;
          } catch {
            // Not JSON: read here, for the error naming its line and column.
            lookAfter = end;
          }
        }
      }
      if (c === 123 /* { */ || c === 91 /* [ */) {
        const isObject = c === 123;
        const container: Record<string, unknown> | unknown[] = isObject ? {} : [];
        i = endOfSpace(text, i + 1);
        if (text.charCodeAt(i) === (isObject ? 125 : 93)) {
          i++;
          value = container;
          ready = true;
          continue;
        }
        const frame: Frame = { container, key: undefined };
        stack.push(frame);
        if (enter(frame)) {
          stack.pop();
          value = container;
          ready = true;
        }
        continue;
      }
      if (c === 34 /* " */) {
        const start = i;
        i = endOfString(text, i);
        value = stringValue(text, start, i);
      } else if (c === 45 /* - */ || isDigit(c)) {
        const start = i;
        i = endOfNumber(text, i);
        checkNumberToken(text, start, i);
        value = Number(text.slice(start, i));
      } else if (c === 116 && text.startsWith('true', i)) {
        i += 4;
        value = true;
      } else if (c === 102 && text.startsWith('false', i)) {
        i += 5;
        value = false;
      } else if (c === 110 && text.startsWith('null', i)) {
        i += 4;
        value = null;
      } else {
        syntaxError(text, 'expected a JSON value', i);
      }
      ready = true;
    }
    // A value is complete: it goes into its container, which it may complete in turn.
    const frame = stack[stack.length - 1];
    if (frame === undefined) {
      i = endOfSpace(text, i);
      if (i < n) syntaxError(text, 'expected the end of the input after the JSON value', i);
      return value;
    }
    const isObject = !Array.isArray(frame.container);
    if (isObject) setMember(frame.container as Record<string, unknown>, frame.key as string, value);
    else (frame.container as unknown[]).push(value);
    ready = false;
    i = endOfSpace(text, i);
    const c = text.charCodeAt(i);
    if (c === 44 /* , */) {
      i = endOfSpace(text, i + 1);
      if (enter(frame)) {
        stack.pop();
        value = frame.container;
        ready = true;
      }
      continue;
    }
    if (c !== (isObject ? 125 : 93)) syntaxError(text, isObject ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array", i);
    i++;
    stack.pop();
    value = frame.container;
    ready = true;
  }
}

/**
 * The siblings from `start` (the members or elements of one container) that end within `window`
 * characters: up to the container's closer (`closed`), else up to the last comma between two of
 * them; undefined when the first does not end within it. Strings are skipped; whether the text
 * is JSON is left to JSON.parse.
 */
function siblingsWithin(text: string, start: number, window: number): { end: number; closed: boolean } | undefined {
  const limit = Math.min(text.length, start + window);
  let depth = 0;
  let comma = -1;
  for (let i = start; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = endOfQuoted(text, i, limit);
      if (i < 0) break;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (depth === 0) return { end: i, closed: true };
      depth--;
    } else if (c === 44 && depth === 0) comma = i;
  }
  return comma > start ? { end: comma, closed: false } : undefined;
}

/** The index of the quote closing the string opened at `open`, or -1 when it is not before `limit`. */
function endOfQuoted(text: string, open: number, limit: number): number {
  let i = open;
  for (;;) {
    const quote = text.indexOf('"', i + 1);
    if (quote < 0 || quote >= limit) return -1;
    let backslash = quote - 1;
    while (text.charCodeAt(backslash) === 92) backslash--;
    i = quote;
    if ((quote - 1 - backslash) % 2 === 0) return quote;
  }
}

/**
 * The index after the container opening at `start` when it closes within `window` characters
 * (strings skipped; whether it is JSON is left to JSON.parse), else -1.
 */
function closeWithin(text: string, start: number, window: number): number {
  const limit = Math.min(text.length, start + window);
  let depth = 0;
  for (let i = start; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = endOfQuoted(text, i, limit);
      if (i < 0) return -1;
    } else if (c === 123 || c === 91) depth++;
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1;
  }
  return -1;
}

/** Reads `"name":` at `i` into `frame.key`; the index after the colon. */
function readKey(text: string, i: number, frame: Frame): number {
  if (text.charCodeAt(i) !== 34) syntaxError(text, 'expected a member name (a string) in an object', i);
  const start = i;
  i = endOfString(text, i);
  frame.key = stringValue(text, start, i);
  i = endOfSpace(text, i);
  if (text.charCodeAt(i) !== 58 /* : */) syntaxError(text, "expected ':' after a member name", i);
  return i + 1;
}

/**
 * A message's text parsed as {@link parseJson} reads data: at once below `slicedFromChars`
 * (default {@link SLICED_FROM_CHARS}), in slices from there up ({@link parseJsonSliced}, stopped
 * by `signal`). Every host path that reads messages (HTTP bodies and answers, socket lines,
 * process frames) decides the same way here.
 */
export async function parseJsonMessage(text: string, options: SlicedParseOptions & { slicedFromChars?: number } = {}): Promise<unknown> {
  return text.length >= (options.slicedFromChars ?? SLICED_FROM_CHARS) ? parseJsonSliced(text, options) : parseJson(text, 'data');
}
