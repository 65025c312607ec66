/**
 * The one refusal of a client's request to `mep serve` nested deeper than the host reads
 * ({@link MAX_JSON_DEPTH}, `maxJsonDepth`, the bound of every message and of input files), on
 * every transport: stdio and socket lines (line-transport.ts), HTTP bodies read on the server's
 * thread (http-rpc.ts) and on the body worker (body-worker.ts). Checked on the text, unread, so
 * nothing recursive (JSON.parse's consumers, the schema, `JSON.stringify` when the call is sent)
 * ever sees it. Before, 60,000 levels in a 120 KB HTTP body overflowed `JSON.stringify` on the
 * server's thread and 300,000 levels overflowed the body worker: untyped -32603, id null.
 *
 * No I/O: the body worker runs it too.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { MAX_JSON_DEPTH, closingQuote, findExcessNesting } from '../protocol/json-depth.ts';
import { parseJson } from '../protocol/json-parse.ts';
import type { JsonRpcId } from '../rpc/index.ts';
import { toWireError } from './wire-error.ts';

/** A request refused for its depth: the id it carried (null when it has none a client could match) and the wire error. */
export interface DeepRequest {
  id: JsonRpcId | null;
  error: MepError;
}

/**
 * The refusal of `text` when it nests deeper than {@link MAX_JSON_DEPTH} levels, or undefined.
 * The error is ERR_LIMIT as the wire carries it (toWireError: `data.localCode` `ERR_LIMIT`,
 * `data.limit` `maxJsonDepth`, `data.maxDepth`, `data.offset`), naming what to do.
 *
 * @example
 * const deep = refuseDeepRequest(body, 'HTTP request body');
 * if (deep) return errorReply(deep.id, deep.error);
 */
export function refuseDeepRequest(text: string, what: string): DeepRequest | undefined {
  const offset = findExcessNesting(text);
  if (offset < 0) return undefined;
  const error = new MepError(
    LocalErrorCode.Limit,
    `The ${what} nests more than ${MAX_JSON_DEPTH} levels deep (level ${MAX_JSON_DEPTH + 1} opens at character ${offset}); it was refused unread and nothing was sent to the extension. MEP hosts read at most ${MAX_JSON_DEPTH} levels (maxJsonDepth), the envelope's own object included: flatten the params.`,
    { data: { limit: 'maxJsonDepth', maxDepth: MAX_JSON_DEPTH, offset } },
  );
  return { id: topLevelId(text), error: toWireError(error) as MepError };
}

const QUOTE = 34;
const COMMA = 44;
const COLON = 58;
const OPEN = new Set([91, 123]);
const CLOSE = new Set([93, 125]);
// JSON's number grammar whole (1e3 and 1.0 are the integers JSON.parse makes of them), followed by its member's end.
const ID_NUMBER = /\s*(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*[,}])/y;
const SPACE = /\s*/y;

/**
 * The `id` member of the object `text` holds, read without parsing the rest (which may nest
 * too deep to parse): a string, or an integer within ±(2^53 - 1) in any of JSON's spellings (1e3,
 * 1.0); the last one wins, as in JSON.parse. Null when there is none, or it is of another kind:
 * the id the shallow request's parse (parseJson, parseMessage) would answer with.
 */
export function topLevelId(text: string): JsonRpcId | null {
  let depth = 0;
  let expectKey = false;
  let key: string | undefined;
  let id: JsonRpcId | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      if (end < 0) break;
      if (depth === 1 && expectKey) key = end - i < 32 ? stringAt(text, i, end) : undefined;
      expectKey = false;
      i = end;
    } else if (OPEN.has(c)) {
      depth++;
      expectKey = depth === 1 && c === 123;
      if (depth === 1 && c !== 123) return null;
    } else if (CLOSE.has(c)) {
      depth--;
    } else if (c === COMMA && depth === 1) {
      expectKey = true;
    } else if (c === COLON && depth === 1 && key === 'id') {
      key = undefined;
      id = idAt(text, i + 1);
    }
  }
  return id;
}

function stringAt(text: string, start: number, end: number): string | undefined {
  return readJson(text.slice(start, end + 1)) as string | undefined;
}

/** The id whose value starts at `i` (after spaces), or null when it is not a string or safe integer. */
function idAt(text: string, i: number): JsonRpcId | null {
  SPACE.lastIndex = i;
  SPACE.test(text);
  const start = SPACE.lastIndex;
  if (text.charCodeAt(start) === QUOTE) {
    const end = closingQuote(text, start + 1);
    return end < 0 ? null : (stringAt(text, start, end) ?? null);
  }
  ID_NUMBER.lastIndex = i;
  const number = ID_NUMBER.exec(text);
  const value = number ? readJson(number[1] as string) : undefined;
  // parseMessage's id: -0 is the integer 0.
  return Number.isSafeInteger(value) ? (value as number) + 0 : null;
}

/** The string or number `token` spells, or undefined when the host's parser refuses it (a number no double holds). */
function readJson(token: string): unknown {
  try {
    return parseJson(token, 'data');
  } catch {
    return undefined;
  }
}
