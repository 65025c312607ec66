/**
 * A JSON document kept as its text. The CLI reads a Morphir IR file only to hand it to an
 * extension: parsing it on the host (tens of MB of objects, most of the time in the garbage
 * collector) and serializing it again for the request were the host's biggest costs on a large
 * model. A {@link JsonText} is checked to be JSON in one pass that builds nothing, goes on the
 * wire as text (framing/json-text.ts splices it into the request), and is parsed only if
 * something on the host asks for its value (an in-process transport, a transcript).
 *
 * @example
 * const ir = JsonText.parse(await readFile('morphir-ir.json', 'utf8')); // throws JsonTextError on bad JSON
 * ir.kind;                    // 'object'
 * ir.member('formatVersion'); // 3
 * await session.generate({ ir, target: 'avro' });
 */
import { parseJson } from './json-parse.ts';
import { checkNumberToken } from './json-numbers.ts';
import { JsonTextError } from './json-text-error.ts';

export { JsonTextError };

/**
 * Params whose `ir` may also be given as a {@link JsonText} (what the host sends; the extension
 * always receives JSON).
 */
export type WithIrText<P extends { ir: unknown }> = { [K in keyof P]: K extends 'ir' ? P[K] | JsonText : P[K] };

export type JsonKind = Kind;

/** What {@link JsonText.parse} may be told besides the text. */
export interface JsonTextOptions {
  /** Refuse (a {@link JsonTextError}) a container that opens level `maxDepth + 1`, in the same pass. */
  maxDepth?: number;
  /** The text's own UTF-8 bytes, when they are at hand (a file read as bytes): kept to go on the wire as they are when the text is compact. */
  utf8?: Uint8Array;
}
type Kind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** One JSON document as text: checked, with its top-level primitive members at hand. */
export class JsonText {
  #value: unknown;
  #parsed = false;
  #compact: string | undefined;
  #utf8: Uint8Array | undefined;

  private constructor(
    /** The text as given. */
    readonly text: string,
    /** The kind of the top-level value. */
    readonly kind: Kind,
    private readonly spaced: boolean,
    private readonly members: ReadonlyMap<string, string>,
  ) {}

  /**
   * Checks that `text` is one JSON value (RFC 8259), nesting at most `options.maxDepth` levels;
   * throws {@link JsonTextError} naming the first problem.
   */
  static parse(text: string, options: JsonTextOptions = {}): JsonText {
    const maxDepth = options.maxDepth ?? Infinity;
    if (!looksIndented(text)) {
      const scan = scanJson(text, maxDepth);
      const json = new JsonText(text, scan.kind, scan.spaced, scan.members);
      if (!scan.spaced) json.#utf8 = options.utf8;
      return json;
    }
    // Indented text (as morphir-elm writes IR: a 30.7 MB file of the 1,500-type model holds
    // 1.4 MB of tokens) is mostly whitespace. V8's regular expressions drop it faster than any
    // scan in JS, and, unlike parsing it, build no tree of objects for the collector to trace:
    // the compact text is then checked, at a twentieth of the size. The text keeps a space
    // between two word characters (`1 2` stays invalid) and every string as it is, so the
    // compact text is JSON exactly when the text is; only a refusal scans the text itself, for
    // the line and column.
    const compact = text.replace(INTER_TOKEN_SPACE, '$1');
    let scan: ReturnType<typeof scanJson>;
    try {
      scan = scanJson(compact, maxDepth);
    } catch (error) {
      scanJson(text, maxDepth); // the same verdict, with the line and column in the text
      throw error;
    }
    const json = new JsonText(text, scan.kind, true, scan.members);
    json.#compact = compact;
    return json;
  }

  /**
   * A text `JSON.stringify` wrote (so JSON, compact) elsewhere: a worker thread that parsed and
   * checked it (serve/body-worker.ts), with its kind and top-level primitive members' texts, so the
   * text is taken as it is, not scanned again.
   */
  static ofWritten(text: string, kind: Kind, members: Iterable<readonly [string, string]>): JsonText {
    return new JsonText(text, kind, false, new Map(members));
  }

  /** The value, parsed on first use. */
  value(): unknown {
    if (!this.#parsed) {
      this.#value = parseJson(this.text, 'data');
      this.#parsed = true;
    }
    return this.#value;
  }

  /** A top-level member of an object whose value is a string, number, boolean or null; else undefined. */
  member(name: string): unknown {
    const raw = this.members.get(name);
    return raw === undefined ? undefined : parseJson(raw, 'data');
  }

  /** The text without whitespace between tokens (the text itself when it has none), as the wire carries it. */
  compactText(): string {
    this.#compact ??= !this.spaced ? this.text : this.#parsed ? JSON.stringify(this.#value) : compactJson(this.text);
    return this.#compact;
  }

  /**
   * The UTF-8 bytes of {@link compactText}, when the parse was given them and the text is compact
   * (they are then its own bytes, as read); else undefined (encode the text).
   */
  compactUtf8(): Uint8Array | undefined {
    return this.#utf8;
  }

  /** `JSON.stringify` of anything holding it writes its value. */
  toJSON(): unknown {
    return this.value();
  }
}

const enum C {
  Tab = 9,
  Newline = 10,
  Return = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  Upper_E = 69,
  LeftBracket = 91,
  Backslash = 92,
  RightBracket = 93,
  Lower_e = 101,
  Lower_u = 117,
  LeftBrace = 123,
  RightBrace = 125,
}

const kindOf = (value: unknown): Kind =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as 'object' | 'string' | 'number' | 'boolean');

/**
 * A string token (kept, as `$1`), or whitespace outside strings that does not stand between two
 * characters that can end and start a number or a literal (dropped). For valid JSON every string
 * is matched from its opening quote, since the scan reaches each quote outside a string first.
 */
const INTER_TOKEN_SPACE = /("[^"\\]*(?:\\.[^"\\]*)*")|(?<![\w.+-])[ \t\n\r]+|[ \t\n\r]+(?![\w.+-])/g;

/** True when the text starts indented: more than one character in eight of its first 4 KiB is whitespace. */
function looksIndented(text: string): boolean {
  const n = Math.min(text.length, 4096);
  let spaces = 0;
  for (let i = 0; i < n; i++) if (isSpace(text.charCodeAt(i))) spaces++;
  return spaces * 8 > n;
}

const isSpace = (c: number): boolean => c === C.Space || c === C.Newline || c === C.Return || c === C.Tab;
/** The index of the first character at or after `i` that is not whitespace. */
export const endOfSpace = (text: string, i: number): number => {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
};
export const isDigit = (c: number): boolean => c >= C.Zero && c <= C.Nine;
const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isEscape = (c: number): boolean => c === C.Quote || c === C.Backslash || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116; // " \ / b f n r t

/** Throws the error for `what` at `at`, with its line and column. */
export function syntaxError(text: string, what: string, at: number): never {
  const shown = at >= text.length ? 'the end of the input' : JSON.stringify(text.charAt(at));
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  throw new JsonTextError(`${what}, found ${shown} at line ${line}, column ${column}`, at);
}

/**
 * Valid string characters from an escape on: escapes and the unescaped runs after them, at most
 * 4,096 escapes per match (the regex engine's backtrack stack stays small whatever the string).
 */
const ESCAPED_RUN = /(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*){1,4096}/y;

/** The end of the string token starting at `i` (its opening quote), or a thrown error. */
export function endOfString(text: string, i: number): number {
  const n = text.length;
  i++;
  for (;;) {
    let c = 0;
    while (i < n && (c = text.charCodeAt(i)) !== C.Quote && c !== C.Backslash && c >= C.Space) i++;
    if (i >= n) syntaxError(text, 'unterminated string', i);
    if (c === C.Quote) return i + 1;
    if (c < C.Space) syntaxError(text, 'a control character must be escaped in a string', i);
    // At an escape: the valid rest of the string by native regex runs (an artifact holding JSON
    // or code has an escape every few characters); where a run stops short of the closing quote
    // (an invalid escape), the loop goes on from there and names it.
    ESCAPED_RUN.lastIndex = i;
    ESCAPED_RUN.test(text);
    if (ESCAPED_RUN.lastIndex > i) {
      i = ESCAPED_RUN.lastIndex;
      continue;
    }
    const e = text.charCodeAt(i + 1);
    if (e === C.Lower_u) {
      for (let k = 2; k < 6; k++) if (!isHex(text.charCodeAt(i + k))) syntaxError(text, '\\u must be followed by four hex digits', i + k);
      i += 6;
    } else if (isEscape(e)) {
      i += 2;
    } else {
      syntaxError(text, 'invalid escape in a string', i + 1);
    }
  }
}

/** The end of the number token starting at `i`, or a thrown error. */
export function endOfNumber(text: string, i: number): number {
  if (text.charCodeAt(i) === C.Minus) i++;
  if (text.charCodeAt(i) === C.Zero) i++;
  else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++;
  else syntaxError(text, 'expected a digit', i);
  if (text.charCodeAt(i) === C.Dot) {
    i++;
    if (!isDigit(text.charCodeAt(i))) syntaxError(text, 'expected a digit after the decimal point', i);
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === C.Lower_e || e === C.Upper_E) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === C.Plus || sign === C.Minus) i++;
    if (!isDigit(text.charCodeAt(i))) syntaxError(text, 'expected a digit in the exponent', i);
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

const KINDS: Record<number, Kind> = { [C.Quote]: 'string', 116: 'boolean', 102: 'boolean', 110: 'null' };

/**
 * Validates `text` as one JSON value without building it: one loop with its state in locals
 * (containers on a stack of closers, so nesting costs no call stack).
 */
function scanJson(text: string, maxDepth: number): { kind: Kind; spaced: boolean; members: Map<string, string> } {
  const n = text.length;
  const members = new Map<string, string>();
  const stack: number[] = []; // what closes each open container: C.RightBrace or C.RightBracket
  let i = 0;
  let spaced = false;
  let kind: Kind | undefined;
  let key: string | undefined; // the top-level object's current member name
  for (;;) {
    // A value is expected at i.
    let j = endOfSpace(text, i);
    spaced ||= j > i;
    i = j;
    let c = text.charCodeAt(i);
    const start = i;
    let opened = false;
    if (c === C.LeftBrace || c === C.LeftBracket) {
      if (stack.length >= maxDepth) throw new JsonTextError(`nests more than ${maxDepth} levels deep`, i);
      kind ??= c === C.LeftBrace ? 'object' : 'array';
      const closer = c === C.LeftBrace ? C.RightBrace : C.RightBracket;
      j = endOfSpace(text, ++i);
      spaced ||= j > i;
      i = j;
      if (text.charCodeAt(i) === closer) i++; // empty
      else {
        stack.push(closer);
        opened = true;
      }
    } else {
      if (c === C.Quote) i = endOfString(text, i);
      else if (c === C.Minus || isDigit(c)) {
        i = endOfNumber(text, i);
        checkNumberToken(text, start, i);
      } else if (c === 116 && text.startsWith('true', i)) i += 4;
      else if (c === 102 && text.startsWith('false', i)) i += 5;
      else if (c === 110 && text.startsWith('null', i)) i += 4;
      else syntaxError(text, 'expected a JSON value', i);
      kind ??= KINDS[c] ?? 'number';
      if (key !== undefined && stack.length === 1) members.set(key, text.slice(start, i));
    }
    // After a value, or just inside a container: separators and closers, then a member name.
    for (;;) {
      if (stack.length === 0) {
        j = endOfSpace(text, i);
        spaced ||= j > i;
        i = j;
        if (i < n) syntaxError(text, 'expected the end of the input after the JSON value', i);
        return { kind: kind as Kind, spaced, members };
      }
      const closer = stack[stack.length - 1] as number;
      if (!opened) {
        j = endOfSpace(text, i);
        spaced ||= j > i;
        i = j;
        c = text.charCodeAt(i);
        if (c === closer) {
          stack.pop();
          i++;
          continue;
        }
        if (c !== C.Comma) syntaxError(text, closer === C.RightBrace ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array", i);
        j = endOfSpace(text, ++i);
        spaced ||= j > i;
        i = j;
      }
      opened = false;
      if (closer === C.RightBrace) {
        if (text.charCodeAt(i) !== C.Quote) syntaxError(text, 'expected a member name (a string) in an object', i);
        const nameStart = i;
        i = endOfString(text, i);
        if (stack.length === 1) key = parseJson(text.slice(nameStart, i), 'data') as string;
        j = endOfSpace(text, i);
        spaced ||= j > i;
        i = j;
        if (text.charCodeAt(i) !== C.Colon) syntaxError(text, "expected ':' after a member name", i);
        i++;
      }
      break;
    }
  }
}

/** `text` (valid JSON) without the whitespace between its tokens. */
function compactJson(text: string): string {
  const parts: string[] = [];
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === C.Quote) {
      i = endOfString(text, i);
    } else if (isSpace(c)) {
      if (i > from) parts.push(text.slice(from, i));
      i = endOfSpace(text, i);
      from = i;
    } else {
      i++;
    }
  }
  if (n > from) parts.push(text.slice(from, n));
  return parts.join('');
}
