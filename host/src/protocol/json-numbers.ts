/**
 * JSON numbers the host cannot hold. The host keeps a JSON number as a double and writes it back
 * as `JSON.stringify` does, so a number no double holds was changed on its way through, without a
 * word: `1e400` reached an extension as `null`, `1e-400` as `0`, `9007199254740993` as
 * `9007199254740992`, `123456789012345678901234567890` as `1.2345678901234568e+29`. MEP 0.1 says
 * nothing of numbers; JSON-RPC 2.0 is JSON (RFC 8259, which warns that numbers beyond a double's
 * range and precision will not interoperate), and I-JSON (RFC 7493 §2.2) says not to send them.
 * So the host refuses them where it parses, naming the number and where, and to send it as a
 * string: a number is taken when the double nearest it is written back as the same number
 * (`1.50`, `1E2`, `0.1` and `-0` are; `-0` is zero, written `0`). No I/O.
 */
import { JsonTextError } from './json-text-error.ts';

/** A number token no double holds: the host would have written another number in its place. */
export class UnheldNumberError extends JsonTextError {
  override readonly name = 'UnheldNumberError';
  constructor(
    /** The number as written. */
    readonly number: string,
    /** What the host would have made of it (`null` for infinity). */
    readonly becomes: string,
    position: number,
    where: string,
  ) {
    super(`the number ${number.length > 40 ? `${number.slice(0, 40)}…` : number} ${where} is beyond what a JSON number (a double) holds: it would become ${becomes}; send such a value as a string`, position);
  }
}

/** The decimal a number token denotes, as significant digits and the power of ten of the last: `0.0120` → `12@-3`, zero → `0`. */
function decimalKey(token: string): string {
  let digits = '';
  let exponent = 0;
  let seenPoint = false;
  let i = token.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  for (; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === 46 /* . */) seenPoint = true;
    else if (c === 101 || c === 69 /* e E */) {
      exponent += Number(token.slice(i + 1));
      break;
    } else {
      if (digits.length > 0 || c !== 48) digits += token.charAt(i);
      if (seenPoint) exponent--;
    }
  }
  if (digits.length === 0) return '0';
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  return `${digits.slice(0, end)}@${exponent + digits.length - end}`;
}

/**
 * What `token` (a JSON number, valid) would be written back as when it is not the same number,
 * else undefined. Short tokens without an exponent (at most 15 digits: every double keeps them)
 * are not looked at further.
 */
export function changedNumber(token: string): string | undefined {
  if (token.length <= 15 && !/[eE]/.test(token)) return undefined;
  const value = Number(token);
  if (!Number.isFinite(value)) return 'null';
  const written = JSON.stringify(value);
  return decimalKey(written) === decimalKey(token) ? undefined : written;
}

/** Throws {@link UnheldNumberError} when the number token `text[start, end)` is not held exactly. */
export function checkNumberToken(text: string, start: number, end: number): void {
  if (end - start <= 15) {
    let exponent = false;
    for (let i = start; i < end && !exponent; i++) exponent = (text.charCodeAt(i) | 32) === 101;
    if (!exponent) return;
  }
  const token = text.slice(start, end);
  const becomes = changedNumber(token);
  if (becomes === undefined) return;
  const before = text.slice(0, start);
  const line = before.split('\n').length;
  throw new UnheldNumberError(token, becomes, start, `at line ${line}, column ${start - before.lastIndexOf('\n')}`);
}

/** A number that may not be held: 16 digits (a point between them or not) or a 3-digit exponent. */
const MAY_NOT_HOLD = /[0-9.]{16}|[eE][-+]?\d{3}/;
/** Strings (skipped whole) and numbers of a valid JSON text. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d[\d.eE+-]*/g;

/**
 * Throws {@link UnheldNumberError} for the first number of `text` (valid JSON) that no double
 * holds. A text without 16 digits in a row nor a 3-digit exponent anywhere (most) is not walked.
 */
export function checkNumbers(text: string): void {
  if (!MAY_NOT_HOLD.test(text)) return;
  TOKENS.lastIndex = 0;
  for (let match = TOKENS.exec(text); match !== null; match = TOKENS.exec(text)) {
    if (match[0].charCodeAt(0) !== 34) checkNumberToken(text, match.index, match.index + match[0].length);
  }
}
