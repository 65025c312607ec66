/**
 * The one bound on how deeply the JSON of a message may nest, checked on the text before it is
 * parsed. V8's `JSON.parse` takes any depth, but everything after it that walks a value
 * (`JSON.stringify` for `--json` output and transcripts, redaction, schema checks) recurses, and
 * a result nested 100,000 levels deep made `mep generate --json` report a failure after the
 * files were written. Bounding every message where it is decoded makes such a result a typed
 * error before anything is written, on every transport alike.
 *
 * No I/O: the same check runs in the wasm core, the process transport and `mep serve`.
 */
import { LocalErrorCode, MepError } from './errors.ts';

/**
 * The deepest nesting of arrays and objects (the whole message counted, the envelope's own
 * object is level 1) that the host reads: 2,000 levels, as many as the wasm guest engine parses
 * and writes (build/engine/json.test.ts, "2,000 deep"), so whatever a sandboxed guest can
 * send, the host can read, and well within what the host's own `JSON.stringify` takes (about
 * 4,100 levels on Node's default stack).
 */
export const MAX_JSON_DEPTH = 2000;

/** Levels a request puts around an input's value (the message, `params`, `ir`). */
export const REQUEST_LEVELS = 3;

/** The deepest an input (a Morphir IR file or body) may nest: what a request carries, less its own levels. */
export const MAX_INPUT_DEPTH = MAX_JSON_DEPTH - REQUEST_LEVELS;

/**
 * The ERR_LIMIT error for an input (`what`: "The input ir.json", "The request body") nested past
 * {@link MAX_INPUT_DEPTH}, level {@link MAX_INPUT_DEPTH} + 1 opening at character `offset`:
 * `data.limit` is `maxJsonDepth`, with `extra` beside it. Refused before anything is sent.
 */
export function deepInputError(what: string, offset: number, extra: Record<string, unknown> = {}): MepError {
  return new MepError(
    LocalErrorCode.Limit,
    `${what} nests more than ${MAX_INPUT_DEPTH} levels deep (level ${MAX_INPUT_DEPTH + 1} opens at character ${offset}); nothing was sent. A request carries at most ${MAX_JSON_DEPTH} levels, its own ${REQUEST_LEVELS} included, as many as an extension in the wasm sandbox reads: flatten the input.`,
    { data: { ...extra, limit: 'maxJsonDepth', maxDepth: MAX_INPUT_DEPTH, offset } },
  );
}

/**
 * The ERR_LIMIT error for a message the host was handed to send (a request's params: an IR object
 * a page or a library caller built) nesting past {@link MAX_JSON_DEPTH}, at character `offset`
 * of its text when known: nothing was sent. `data.limit` is `maxJsonDepth`.
 */
function outgoingNestingError(offset: number | undefined, cause?: Error): MepError {
  const where = offset === undefined ? `too deep to be written (${cause?.message})` : `more than ${MAX_JSON_DEPTH} levels deep (level ${MAX_JSON_DEPTH + 1} opens at character ${offset})`;
  return new MepError(
    LocalErrorCode.Limit,
    `A message to the extension nests ${where}; nothing was sent. A request carries at most ${MAX_JSON_DEPTH} levels, as many as an extension in the wasm sandbox reads and as MEP hosts read: flatten the input (an IR nests far less).`,
    { data: { limit: 'maxJsonDepth', maxDepth: MAX_JSON_DEPTH, ...(offset === undefined ? {} : { offset }) }, ...(cause ? { cause } : {}) },
  );
}

/** The shortest balanced JSON text nested past {@link MAX_JSON_DEPTH}: its brackets, opened and closed. */
const SHORTEST_TOO_DEEP = 2 * (MAX_JSON_DEPTH + 1);

/**
 * `JSON.stringify(message)` for the host to send, held to {@link MAX_JSON_DEPTH} as what it
 * reads is: deeper, or too deep for the engine's stack (V8's RangeError, Firefox's "too much
 * recursion"), it throws ERR_LIMIT naming `maxJsonDepth` instead. The check is one scan of the
 * text (about 3 ms a MB), a few percent of what writing it took.
 */
export function stringifyWithinDepth(message: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    if (error instanceof Error && /call stack|too much recursion/i.test(error.message)) throw outgoingNestingError(undefined, error);
    throw error;
  }
  // JSON.stringify's text is balanced: nesting past MAX_JSON_DEPTH takes as many brackets to open
  // and to close, so a shorter text (a ping, a notification: most messages) is not scanned.
  const offset = typeof text === 'string' && text.length >= SHORTEST_TOO_DEEP ? findExcessNesting(text) : -1;
  if (offset >= 0) throw outgoingNestingError(offset);
  return text;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const COMMA = 44;
/**
 * Characters of a string up to its closing quote, escapes skipped (not judged): at most 4,096
 * escapes per match, so the regex engine's backtrack stack stays small whatever the string.
 */
const STRING_RUN = /[^"\\]*(?:\\[^][^"\\]*){0,4096}/y;

/** The index of the quote closing the string whose characters start at `i`, or -1 when none does. */
export function closingQuote(text: string, i: number): number {
  const close = text.indexOf('"', i);
  // A string without an escaped quote (most) is found by one search.
  if (close <= 0 || text.charCodeAt(close - 1) !== BACKSLASH) return close;
  // One with escaped quotes (an artifact holding JSON or code: one every few characters) by
  // native regex runs rather than one search per quote.
  for (;;) {
    STRING_RUN.lastIndex = i;
    STRING_RUN.test(text);
    const end = STRING_RUN.lastIndex;
    if (text.charCodeAt(end) === QUOTE) return end;
    if (end >= text.length || end === i) return -1;
    i = end;
  }
}

/** What {@link scanNesting} found in one pass over a JSON text. */
export interface NestingScan {
  /** The offset of the bracket opening level `maxDepth + 1`, or -1 (as {@link findExcessNesting}). */
  excess: number;
  /**
   * Brackets and commas outside strings, plus one: at least the number of values the text holds
   * (each element or member after the first follows a comma, each container opens with a bracket),
   * counted up to `excess` when the text nests too deep.
   */
  values: number;
}

/**
 * {@link findExcessNesting}, counting the values of the text in the same pass: a reader that
 * parses large texts in slices (json-sliced.ts) can tell a text of few values (a generator's
 * artifacts: a few long strings), which one `JSON.parse` reads in one short step, from one of
 * many. One pass, nothing allocated but the answer.
 */
export function scanNesting(text: string, maxDepth: number = MAX_JSON_DEPTH): NestingScan {
  let depth = 0;
  let values = 1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the quote closing the string.
      i = closingQuote(text, i + 1);
      if (i < 0) break;
    } else if (c === COMMA) {
      values++;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      values++;
      if (++depth > maxDepth) return { excess: i, values };
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return { excess: -1, values };
}

/**
 * The offset (in UTF-16 code units) of the bracket that opens nesting level `maxDepth + 1`, or
 * -1 when `text` never nests deeper than `maxDepth`. Brackets inside strings do not count. The
 * text need not be valid JSON (the parser that runs next judges that); for valid JSON the answer
 * is exact. One pass; a string is skipped to its closing quote at once.
 *
 * @example
 * if (findExcessNesting(body) >= 0) throw nestingLimitError('acme.gen', 'response', findExcessNesting(body));
 */
export function findExcessNesting(text: string, maxDepth: number = MAX_JSON_DEPTH): number {
  return scanNesting(text, maxDepth).excess;
}

/**
 * The ERR_LIMIT error for a message from extension `name` that nests deeper than the host reads: it names
 * the sender, where the limit was passed and that nothing was read (`data.limit` is
 * `maxJsonDepth`, `data.maxDepth` its value, `data.offset` the offending bracket when known).
 */
export function nestingLimitError(name: string, what: string, offset?: number, maxDepth: number = MAX_JSON_DEPTH): MepError {
  const where = offset === undefined ? '' : ` (level ${maxDepth + 1} opens at character ${offset})`;
  return new MepError(
    LocalErrorCode.Limit,
    `Extension ${name} sent a ${what} whose JSON nests more than ${maxDepth} levels deep${where}; it was refused before being read, so nothing of it was used or written. MEP hosts read at most ${maxDepth} levels, as many as the wasm guest engine writes; report this to the extension's author.`,
    { data: { extension: name, limit: 'maxJsonDepth', maxDepth, ...(offset === undefined ? {} : { offset }) } },
  );
}
