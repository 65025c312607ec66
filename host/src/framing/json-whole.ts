/**
 * The fast path of framing/json-chunks.ts: a small plain value (what `JSON.parse` makes: arrays,
 * plain objects, strings, finite numbers, booleans, null) is written by one native
 * `JSON.stringify`, whose text is exactly what the chunked walk writes when the value nests less
 * than the indented levels and no string holds a code point safe-text.ts escapes. Its size is
 * bounded before the string is made (`HOST_BOUNDS.jsonWholeChars`), so no value is amplified
 * into one big string: a bigger, deeper, shared or unusual value (`toJSON`, `undefined`, a class
 * instance, a cycle) is left to the chunked walk. No I/O.
 */
import { HOST_BOUNDS } from '../protocol/limits.ts';
import { safeText } from './safe-text.ts';

/** The most characters one member costs beside its key and value: a comma, a line feed, `": "`, quotes. */
const MEMBER_CHARS = 8;
/** The most characters `JSON.stringify` writes for one UTF-16 unit of a string (`\u001f`). */
const ESCAPED_UNIT_CHARS = 6;

/**
 * True when `value` is plain JSON data nesting fewer than `levels` containers deep, whose JSON
 * text indented by `indent` is at most `budget` characters, counted high (each string unit as
 * an escape) without making it. A shared container is counted each time it is met, as the text
 * would hold it, so a cycle runs out of budget.
 */
function plainWithin(value: unknown, levels: number, indent: number, budget: number): boolean {
  const stack: unknown[] = [value, 0];
  let left = budget;
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const v = stack.pop();
    left -= MEMBER_CHARS + depth * indent;
    if (left < 0) return false;
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'string') left -= v.length * ESCAPED_UNIT_CHARS;
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return false;
      left -= 24; // the longest a number prints: -1.2345678901234567e-308
    } else if (typeof v !== 'object' || depth >= levels) return false;
    else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i], depth + 1);
    } else {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key of Object.keys(v)) {
        left -= key.length * ESCAPED_UNIT_CHARS;
        stack.push((v as Record<string, unknown>)[key], depth + 1);
      }
    }
  }
  return left >= 0;
}

/**
 * The JSON text of `value` as `JSON.stringify(value, null, indent)` writes it, when that is the
 * text the chunked walk writes (fewer than `levels` levels, nothing safe-text.ts escapes) and is
 * at most `budget` characters; otherwise undefined.
 *
 * @example
 * wholeJsonText({ a: [1] }, 2, 32); // '{\n  "a": [\n    1\n  ]\n}'
 */
export function wholeJsonText(value: unknown, indent: number, levels: number, budget = HOST_BOUNDS.jsonWholeChars): string | undefined {
  // JSON.stringify indents by at most 10 spaces.
  if (!Number.isInteger(indent) || indent < 0 || indent > 10 || !plainWithin(value, levels, indent, budget)) return undefined;
  const text = JSON.stringify(value, null, indent);
  return text.length <= budget && safeText(text) === text ? text : undefined;
}

/** `text` in slices of about `size` units, never splitting a surrogate pair. */
export function* slicesOf(text: string, size: number): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + Math.max(2, size));
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield text.slice(at, end);
    at = end;
  }
}
