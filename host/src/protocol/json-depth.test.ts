import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode } from './errors.ts';
import { MAX_JSON_DEPTH, findExcessNesting, nestingLimitError, scanNesting, stringifyWithinDepth } from './json-depth.ts';

/** The number of values in a parsed value, the value itself included. */
function valuesOf(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    count++;
    if (typeof v === 'object' && v !== null) stack.push(...Object.values(v));
  }
  return count;
}

/** The reference: the depth of the parsed value, measured without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, d + 1);
    for (const member of Object.values(v)) stack.push([member, d + 1]);
  }
  return deepest;
}

const nest = (n: number, inner = '1') => `${'{"a":['.repeat(n)}${inner}${']}'.repeat(n)}`;

const Depth = suite('findExcessNesting');

Depth('should pass text at the limit and stop at the bracket one level past it', () => {
  const at = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
  assert.is(findExcessNesting(at), -1);
  const past = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
  assert.is(findExcessNesting(past), MAX_JSON_DEPTH);
  assert.is(findExcessNesting('{"a":{"b":[1]}}', 2), 10);
  assert.is(findExcessNesting('{"a":{"b":[1]}}', 3), -1);
});

Depth('should not count brackets inside strings, whatever escapes precede the quotes :: strings', () => {
  assert.is(findExcessNesting('["[[[[", "{{{{"]', 1), -1);
  assert.is(findExcessNesting('["\\"[[[", "\\\\", [1]]', 1), 16);
  assert.is(findExcessNesting('["\\\\\\"[[["]', 1), -1);
  assert.is(findExcessNesting('{"k\\u0022[[": "\\\\"}', 1), -1);
  assert.is(findExcessNesting('"unterminated [[[', 0), -1, 'an open string ends the scan; the parser refuses it');
});

Depth('should agree with the depth of the parsed value on seeded random documents :: reference', () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const strings = ['"x"', '"[{"', '"\\"]"', '"\\\\"', '"é😀"', '""'];
  const value = (depth: number): string => {
    const r = rand();
    if (depth > 12 || r < 0.3) return strings[Math.floor(rand() * strings.length)] as string;
    const n = Math.floor(rand() * 4);
    if (r < 0.65) return `[${Array.from({ length: n }, () => value(depth + 1)).join(',')}]`;
    return `{${Array.from({ length: n }, (_, i) => `${strings[i % strings.length]}:${value(depth + 1)}`).join(',')}}`;
  };
  for (let i = 0; i < 2000; i++) {
    const text = value(0);
    const depth = depthOf(JSON.parse(text));
    for (const max of [Math.max(0, depth - 1), depth, depth + 1]) {
      assert.is(findExcessNesting(text, max) >= 0, depth > max, `${text} at ${max}`);
    }
    // At least every value; exactly, but for one count per empty container.
    const empties = (text.match(/\[\]|\{\}/g) ?? []).length;
    assert.is(scanNesting(text).values, valuesOf(JSON.parse(text)) + empties, text);
  }
});

Depth('should count at least the values of the text, none of a string, in the same pass :: values', () => {
  assert.equal(scanNesting('"a,[{,"'), { excess: -1, values: 1 });
  assert.equal(scanNesting('{"a":[1,2,{"b":"x,y"}],"c":[]}'), { excess: -1, values: 8 }, '7 values, one more for the empty array');
  assert.equal(scanNesting('[[[1,2]]]', 2), { excess: 2, values: 4 }, 'counted up to the excess');
  // A generator's answer: one long string of JSON (escaped quotes, brackets and commas) in few values.
  const artifact = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ k: `v${i}`, a: [i, '"'] })));
  const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { artifacts: [{ path: 'a.json', content: artifact }] } });
  assert.equal(scanNesting(answer), { excess: -1, values: valuesOf(JSON.parse(answer)) });
  assert.ok(scanNesting(artifact).values >= valuesOf(JSON.parse(artifact)));
});

Depth('should scan a 100,000-deep document without recursing :: hostile', () => {
  // Each `{"a":[` is 6 characters and 2 levels: level 2,001 is the brace of the 1,001st.
  assert.is(findExcessNesting(nest(50_000)), 6 * (MAX_JSON_DEPTH / 2));
});

Depth('should skip long strings dense with escapes, past the regex runs, and find the bracket after them :: strings', () => {
  // An artifact holding JSON: an escaped quote every few characters, brackets among them.
  const dense = JSON.stringify(JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ k: `v${i}[`, e: '\\' }))));
  assert.is(findExcessNesting(`[${dense}]`, 1), -1);
  assert.is(findExcessNesting(`[${dense},[1]]`, 1), dense.length + 2);
  // 10,000 escaped backslashes then the closing quote; an escaped quote run with no close.
  assert.is(findExcessNesting(`["${'\\\\'.repeat(10_000)}",[1]]`, 1), 20_000 + 4);
  assert.is(findExcessNesting(`["${'\\"['.repeat(10_000)}`, 1), -1, 'an open string ends the scan');
  assert.is(findExcessNesting(`["${'\\"['.repeat(10_000)}\\`, 1), -1, 'a backslash at the end too');
});

Depth.run();

const LimitError = suite('nestingLimitError');

LimitError('should be an ERR_LIMIT naming the extension, the limit and the offset', () => {
  const error = nestingLimitError('acme.gen', 'response', 42);
  assert.is(error.code, LocalErrorCode.Limit);
  assert.equal(error.data, { extension: 'acme.gen', limit: 'maxJsonDepth', maxDepth: MAX_JSON_DEPTH, offset: 42 });
});

LimitError.run();

const Written = suite('stringifyWithinDepth');

Written('should refuse the shortest text nested one level past MAX_JSON_DEPTH and write one at it (short texts are not scanned)', () => {
  // Arrays around an empty one: MAX_JSON_DEPTH + 1 levels in 2 * (MAX_JSON_DEPTH + 1) characters,
  // the shortest text the scan must still see.
  const levels = (n: number): unknown => {
    let deep: unknown = [];
    for (let i = 1; i < n; i++) deep = [deep];
    return deep;
  };
  const over = levels(MAX_JSON_DEPTH + 1);
  assert.is(JSON.stringify(over).length, 2 * (MAX_JSON_DEPTH + 1));
  try {
    stringifyWithinDepth(over);
    assert.unreachable('one level past the bound must be refused');
  } catch (error) {
    assert.is((error as { code?: unknown }).code, LocalErrorCode.Limit);
    assert.is((error as { data: { limit: string } }).data.limit, 'maxJsonDepth');
  }
  assert.is(stringifyWithinDepth(levels(MAX_JSON_DEPTH)), JSON.stringify(levels(MAX_JSON_DEPTH)));
  assert.is(stringifyWithinDepth({ jsonrpc: '2.0', id: 1, method: 'morphir.ping' }), '{"jsonrpc":"2.0","id":1,"method":"morphir.ping"}');
});

Written.run();
