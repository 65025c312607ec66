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
import { endOfNumber, endOfSpace, endOfString, isDigit, syntaxError } from './json-text.ts';

/** Values built between two turns of the event loop (a few milliseconds of work). */
export const SLICE_VALUES = 16_384;

/**
 * A container whose text closes within this many characters is built by `JSON.parse` itself
 * (several times faster than building it here, and at most a few ms even of `[{},{},…]`); it
 * counts as a quarter of its characters against the slice.
 */
const NATIVE_CHARS = 16 * 1024;

/** Options of {@link parseJsonSliced}. */
export interface SlicedParseOptions {
  /** Values built between two turns of the event loop. Default {@link SLICE_VALUES}. */
  sliceValues?: number;
  /** Containers closing within this many characters are built by JSON.parse. Default 16 KiB (0: none, every value built here). */
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
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
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
  // A look-ahead that did not find its container's end within NATIVE_CHARS is not tried again
  // before the end of that window, so no character is looked ahead at more than once.
  let lookAfter = 0;
  for (;;) {
    if (--budget <= 0) {
      budget = slice;
      await yieldTurn();
      options.signal?.throwIfAborted();
    }
    // A value starts at i.
    i = endOfSpace(text, i);
    let c = text.charCodeAt(i);
    let value: unknown;
    let native = false;
    if ((c === 123 || c === 91) && i >= lookAfter) {
      const end = closeWithin(text, i, nativeChars);
      if (end < 0) lookAfter = i + nativeChars;
      else {
        try {
          value = JSON.parse(text.slice(i, end));
          budget -= (end - i) >> 2;
          i = end;
          native = true;
        } catch {
          // Not JSON: read it here, for the error naming its line and column.
          lookAfter = end;
        }
      }
    }
    if (native) {
      // Built whole.
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      const isObject = c === 123;
      const container: Record<string, unknown> | unknown[] = isObject ? {} : [];
      i = endOfSpace(text, i + 1);
      if (text.charCodeAt(i) === (isObject ? 125 : 93)) {
        i++;
        value = container;
      } else {
        const frame: Frame = { container, key: undefined };
        stack.push(frame);
        if (isObject) i = readKey(text, i, frame);
        continue;
      }
    } else if (c === 34 /* " */) {
      const start = i;
      i = endOfString(text, i);
      value = stringValue(text, start, i);
    } else if (c === 45 /* - */ || isDigit(c)) {
      const start = i;
      i = endOfNumber(text, i);
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
    // A value is complete: it goes into its container, and containers it completes into theirs.
    for (;;) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) {
        i = endOfSpace(text, i);
        if (i < n) syntaxError(text, 'expected the end of the input after the JSON value', i);
        return value;
      }
      const isObject = !Array.isArray(frame.container);
      if (isObject) setMember(frame.container as Record<string, unknown>, frame.key as string, value);
      else (frame.container as unknown[]).push(value);
      i = endOfSpace(text, i);
      c = text.charCodeAt(i);
      if (c === 44 /* , */) {
        i = endOfSpace(text, i + 1);
        if (isObject) i = readKey(text, i, frame);
        break;
      }
      if (c !== (isObject ? 125 : 93)) syntaxError(text, isObject ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array", i);
      i++;
      stack.pop();
      value = frame.container;
    }
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
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote < 0 || quote >= limit) return -1;
        let backslash = quote - 1;
        while (text.charCodeAt(backslash) === 92) backslash--;
        i = quote;
        if ((quote - 1 - backslash) % 2 === 0) break;
      }
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
