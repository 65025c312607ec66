/**
 * The few top-level members of a JSON object text that a reader needs, each as its own text,
 * with every other member skipped unparsed. A source map's `sourcesContent` and `names` are most
 * of its size and of no use to the host; `JSON.parse` of the whole text would build them (and
 * whatever a hostile map puts beside them: a million empty objects cost far more than their
 * bytes). No I/O.
 */
import { parseJson } from '../../protocol/json-parse.ts';
import { SourceMapError } from './mappings.ts';

const WHITE = /[ \t\n\r]*/y;

/** The offset just past the JSON string that starts at `at` (a quote). */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; ; ) {
    const close = text.indexOf('"', i);
    if (close < 0) throw new SourceMapError('the source map is not JSON (a string is not closed)');
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === 92) backslashes++;
    if ((backslashes & 1) === 0) return close + 1;
    i = close + 1;
  }
}

/** The offset just past the JSON value that starts at `at`. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 34) return stringEnd(text, at);
  if (first === 123 || first === 91) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) i = stringEnd(text, i) - 1;
      else if (c === 123 || c === 91) depth++;
      else if ((c === 125 || c === 93) && --depth === 0) return i + 1;
    }
    throw new SourceMapError('the source map is not JSON (a bracket is not closed)');
  }
  let i = at;
  while (i < text.length && !/[,}\s]/.test(text[i] as string)) i++;
  if (i === at) throw new SourceMapError(`the source map is not JSON (no value at offset ${at})`);
  return i;
}

function skipWhite(text: string, at: number): number {
  WHITE.lastIndex = at;
  WHITE.exec(text);
  return WHITE.lastIndex;
}

/**
 * The text of each member of the top-level object of `text` whose name is in `names` (the last
 * one when a name repeats, as `JSON.parse` keeps). Throws {@link SourceMapError} when `text` is
 * not an object. Values that are skipped are not checked to be valid JSON.
 */
export function topLevelMembers(text: string, names: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  let at = skipWhite(text, 0);
  if (text.charCodeAt(at) !== 123) throw new SourceMapError('the source map is not a JSON object');
  at = skipWhite(text, at + 1);
  if (text.charCodeAt(at) === 125) return found;
  for (;;) {
    if (text.charCodeAt(at) !== 34) throw new SourceMapError(`the source map is not JSON (a member name expected at offset ${at})`);
    const keyEnd = stringEnd(text, at);
    const key = parseJson(text.slice(at, keyEnd), 'data') as string;
    at = skipWhite(text, keyEnd);
    if (text.charCodeAt(at) !== 58) throw new SourceMapError(`the source map is not JSON (":" expected at offset ${at})`);
    at = skipWhite(text, at + 1);
    const end = valueEnd(text, at);
    if (names.includes(key)) found.set(key, text.slice(at, end));
    at = skipWhite(text, end);
    const c = text.charCodeAt(at);
    if (c === 125) return found;
    if (c !== 44) throw new SourceMapError(`the source map is not JSON ("," or "}" expected at offset ${at})`);
    at = skipWhite(text, at + 1);
  }
}
