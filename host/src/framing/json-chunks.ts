/**
 * JSON written as a stream of bounded chunks, for whatever `mep` prints or files that an
 * extension shaped: `--json` results, IR files, transcripts. `JSON.stringify(value, null, 2)`
 * builds one string, which V8 caps at 2^29 − 24 characters, and indents every line by its depth:
 * one 280 KB diagnostic with 140,000 leaves nested 2,000 deep became 557 million characters and
 * failed `mep generate --json` with "Invalid string length" after the artifacts were written.
 * Here no string outgrows a chunk (a long string value is written in slices), and indentation
 * stops at {@link PRETTY_DEPTH} levels (deeper values are written compact, as valid JSON with the
 * same value), so the output is at most a small multiple of the compact JSON, whatever its shape.
 * Strings are written through safe-text.ts: no code point a terminal obeys is written raw.
 * A small plain value is written by one native `JSON.stringify` instead (json-whole.ts).
 * Iterative (an explicit stack), so no depth overflows it. No I/O.
 */
import { HOST_BOUNDS } from '../protocol/limits.ts';
import { safeText } from './safe-text.ts';
import { slicesOf, wholeJsonText } from './json-whole.ts';

/**
 * Levels indented at most (`HOST_BOUNDS.maxIndentedLevels`; deeper values are written compact): a
 * line holds at most 64 spaces of indentation, so indented output is at most about 33 times the
 * compact JSON. Real Morphir IR (about 20 levels) is written exactly as `JSON.stringify(value,
 * null, 2)` writes it.
 */
export const PRETTY_DEPTH = HOST_BOUNDS.maxIndentedLevels;
/** About how many UTF-16 units one chunk holds (`HOST_BOUNDS.jsonChunkChars`). */
export const JSON_CHUNK_CHARS = HOST_BOUNDS.jsonChunkChars;

/** Options of {@link jsonChunks}. */
export interface JsonChunkOptions {
  /** Spaces per level; 0 (the default) writes compact JSON on one line. */
  indent?: number;
  /** Levels indented at most (default {@link PRETTY_DEPTH}). */
  prettyDepth?: number;
  /** About how many characters a chunk holds (default {@link JSON_CHUNK_CHARS}). */
  chunkChars?: number;
}

interface Frame {
  container: object;
  /** The array, or the object's keys. */
  entries: readonly unknown[] | readonly string[];
  isArray: boolean;
  next: number;
  written: number;
  depth: number;
}

/** A string as a JSON string, written in slices that never split a surrogate pair. */
function* quoted(text: string, slice: number): Generator<string> {
  if (text.length <= slice) {
    yield safeText(JSON.stringify(text));
    return;
  }
  yield '"';
  for (const piece of slicesOf(text, slice)) yield safeText(JSON.stringify(piece).slice(1, -1));
  yield '"';
}

/** `value` as JSON.stringify sees it: after `toJSON`, and undefined for what it leaves out. */
function prepared(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') value = (value as { toJSON(key: string): unknown }).toJSON(key);
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
  return value;
}

/**
 * The JSON text of `value`, in chunks of about `chunkChars` characters: the value
 * `JSON.stringify` writes, indented up to `prettyDepth` levels. Throws TypeError for a cycle or
 * a BigInt, as `JSON.stringify` does.
 *
 * @example
 * await writeFile(temp, jsonChunks(result, { indent: 2 }));
 */
export function* jsonChunks(value: unknown, options: JsonChunkOptions = {}): Generator<string> {
  const indent = options.indent ?? 0;
  const prettyDepth = indent > 0 ? (options.prettyDepth ?? PRETTY_DEPTH) : -1;
  const chunk = options.chunkChars ?? JSON_CHUNK_CHARS;
  // A small plain value: one native JSON.stringify, the same text (json-whole.ts).
  const whole = wholeJsonText(value, indent, indent > 0 ? prettyDepth : PRETTY_DEPTH);
  if (whole !== undefined) {
    yield* slicesOf(whole, chunk);
    return;
  }
  const stack: Frame[] = [];
  const open = new Set<object>();
  let out = '';
  const lineAt = (depth: number): string => `\n${' '.repeat(depth * indent)}`;

  /** A long string's slices, written before anything else. */
  let slices: Generator<string> | undefined;

  /** Writes a primitive, or opens a container (its members follow). */
  function start(v: unknown, depth: number): void {
    if (v === null || v === undefined) out += 'null';
    else if (typeof v === 'string') {
      if (v.length <= chunk) out += safeText(JSON.stringify(v));
      else slices = quoted(v, chunk);
    } else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'boolean') out += v ? 'true' : 'false';
    else {
      const container = v as object;
      if (open.has(container)) throw new TypeError('Converting circular structure to JSON');
      open.add(container);
      const isArray = Array.isArray(container);
      out += isArray ? '[' : '{';
      stack.push({ container, entries: isArray ? (container as unknown[]) : Object.keys(container), isArray, next: 0, written: 0, depth });
    }
  }

  start(prepared(value, ''), 0);
  for (;;) {
    if (slices !== undefined) {
      for (const piece of slices) {
        out += piece;
        if (out.length >= chunk) {
          yield out;
          out = '';
        }
      }
      slices = undefined;
    }
    const frame = stack[stack.length - 1];
    if (frame === undefined) break;
    const pretty = frame.depth < prettyDepth;
    if (frame.next < frame.entries.length) {
      const i = frame.next++;
      const key = frame.isArray ? String(i) : (frame.entries[i] as string);
      const member = prepared(frame.isArray ? frame.entries[i] : (frame.container as Record<string, unknown>)[key], key);
      if (member === undefined && !frame.isArray) continue;
      if (frame.written++ > 0) out += ',';
      if (pretty) out += lineAt(frame.depth + 1);
      if (!frame.isArray) out += `${safeText(JSON.stringify(key))}:${pretty ? ' ' : ''}`;
      start(member, frame.depth + 1);
    } else {
      if (pretty && frame.written > 0) out += lineAt(frame.depth);
      out += frame.isArray ? ']' : '}';
      open.delete(frame.container);
      stack.pop();
    }
    if (out.length >= chunk) {
      yield out;
      out = '';
    }
  }
  if (out.length > 0) yield out;
}

/** {@link jsonChunks} followed by a line feed: a JSON file's or a line's content. */
export function* jsonLineChunks(value: unknown, options: JsonChunkOptions = {}): Generator<string> {
  yield* jsonChunks(value, options);
  yield '\n';
}
