/**
 * One backend option given as text (`mep generate --option key=value`, a query parameter of the
 * edge worker's `POST /`), added to an options object as every host adds it. No I/O.
 */
import { parseJson } from './json-parse.ts';

/**
 * Adds option `key` with the value `text` stands for to `options`: JSON when it is valid JSON
 * read by the host's one parser (`false`, `{"a":1}`; a number no double holds, `1e400`, stays the
 * text, not `Infinity` written as `null`), else the plain text, or the text as it is when `literal`.
 * The key is data: `__proto__` becomes an own option, never the object's prototype. Returns false
 * (and adds nothing) when `options` has `key` already.
 *
 * @example
 * if (!addOption(options, 'logical_types', 'false')) throw new UsageError('--option logical_types is given twice');
 */
export function addOption(options: Record<string, unknown>, key: string, text: string, literal = false): boolean {
  if (Object.hasOwn(options, key)) return false;
  let value: unknown = text;
  try {
    if (!literal) value = parseJson(text, 'data');
  } catch {
    // Not JSON: the value is the plain string, as documented.
  }
  Object.defineProperty(options, key, { value, enumerable: true, writable: true, configurable: true });
  return true;
}
