import { isDeepStrictEqual } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSeededRandom, type SeededRandom } from '../../../fixtures/testing/random.ts';
import { TEST_SEED } from '../../../fixtures/testing/tier.ts';
import { UnheldNumberError } from './json-numbers.ts';
import { parseJson } from './json-parse.ts';
import { parseJsonSliced } from './json-sliced.ts';

const Sliced = suite('parseJsonSliced');

/** A random JSON value written with random spacing, keys and escapes. */
function randomJson(random: SeededRandom, depth = 0): string {
  const space = (): string => random.pick(['', '', ' ', '\n  ', '\t']);
  const strings = ['', 'a', 'é€𝄞', '__proto__', 'constructor', '\\"q\\"', '\\u00e9\\n', '\\ud800', '1', '-0', 'x'.repeat(40)];
  const kind = depth > 5 ? random.int(4) : random.int(6);
  switch (kind) {
    case 0:
      return `"${random.pick(strings)}"`;
    case 1:
      return random.pick(['0', '-0', '1e400', '-12.5e-3', '9007199254740993', '3.14', '1E2']);
    case 2:
      return random.pick(['true', 'false', 'null']);
    case 3:
      return `${space()}"${random.pick(strings)}"${space()}`;
    case 4:
      return `[${space()}${Array.from({ length: random.int(5) }, () => randomJson(random, depth + 1)).join(`${space()},${space()}`)}${space()}]`;
    default:
      return `{${space()}${Array.from({ length: random.int(5) }, () => `"${random.pick(strings)}"${space()}:${space()}${randomJson(random, depth + 1)}`).join(',')}${space()}}`;
  }
}

Sliced('should build what JSON.parse builds, key order, __proto__ and duplicate keys included, and refuse the numbers parseJson refuses', async () => {
  const random = createSeededRandom(TEST_SEED);
  for (let n = 0; n < 300; n++) {
    const text = randomJson(random);
    let expected: unknown;
    try {
      expected = parseJson(text, 'data');
    } catch (error) {
      // A number no double holds (json-numbers.ts): refused the same way, every value built here or not.
      assert.instance(error, UnheldNumberError, text);
      for (const nativeChars of [0, random.int(40)]) {
        const refusal = await parseJsonSliced(text, { sliceValues: 1 + random.int(7), nativeChars }).then(() => undefined, (e: unknown) => e);
        assert.instance(refusal, UnheldNumberError, `seed ${TEST_SEED}, case ${n}, nativeChars ${nativeChars}: ${text}`);
      }
      continue;
    }
    assert.ok(isDeepStrictEqual(expected, JSON.parse(text)), text);
    // Every value built by the slicer (nativeChars 0), and small containers left to JSON.parse.
    for (const nativeChars of [0, random.int(40)]) {
      const actual = await parseJsonSliced(text, { sliceValues: 1 + random.int(7), nativeChars });
      // isDeepStrictEqual, not assert.equal: dequal reads `.constructor`, an own member here; -0 stays -0.
      assert.ok(isDeepStrictEqual(actual, expected), `seed ${TEST_SEED}, case ${n}, nativeChars ${nativeChars}: ${text}`);
      assert.is(JSON.stringify(actual), JSON.stringify(expected), `seed ${TEST_SEED}, case ${n}: member order of ${text}`);
    }
  }
  const hostile = (await parseJsonSliced('{"__proto__":{"polluted":1},"a":{"__proto__":[]}}')) as Record<string, unknown>;
  assert.ok(Object.hasOwn(hostile, '__proto__'));
  assert.is(Object.getPrototypeOf(hostile), Object.prototype);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

Sliced('should refuse what JSON.parse refuses, naming where :: SyntaxError', async () => {
  for (const text of ['', ' ', '{', '[1,]', '{"a":1,}', '{"a" 1}', '{a:1}', '01', '1.', '-', '"\u0001"', '"\\x"', '"\\u12g4"', 'tru', '[1] 2', '{"a":1}}', '[{},{}', 'nul', '[1, ]', '[1,2,]', '{"a":1, }', '[,1]', '{,"a":1}', '[[1],[2],]']) {
    assert.throws(() => JSON.parse(text), undefined, `JSON.parse accepts ${JSON.stringify(text)}`);
    for (const nativeChars of [0, 1024]) {
      try {
        await parseJsonSliced(text, { nativeChars });
        assert.unreachable(`accepted ${JSON.stringify(text)} (nativeChars ${nativeChars})`);
      } catch (error) {
        assert.instance(error, SyntaxError, `refusal of ${JSON.stringify(text)}`);
        assert.match((error as Error).message, /line \d+, column \d+/);
      }
    }
  }
});

Sliced('should let the event loop run between slices of a large text, and stop when aborted', async () => {
  const text = `[${'{},'.repeat(200_000)}{}]`;
  const order: string[] = [];
  const parsed = parseJsonSliced(text).then((value) => order.push(`parsed ${(value as unknown[]).length}`));
  setImmediate(() => order.push('another turn'));
  await parsed;
  // Before, JSON.parse held the loop for the whole text: nothing else ran until it was built.
  assert.equal(order, ['another turn', 'parsed 200001']);
  const controller = new AbortController();
  const stopped = parseJsonSliced(text, { signal: controller.signal });
  controller.abort(new Error('client gone'));
  try {
    await stopped;
    assert.unreachable('finished after the abort');
  } catch (error) {
    assert.is((error as Error).message, 'client gone');
  }
});

Sliced('should read long strings dense with escapes, and name the first bad one after thousands of good ones :: strings', async () => {
  // An artifact holding JSON (an escape every few characters), past the regex runs' 4,096 escapes per match.
  const content = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ k: `v${i}é`, e: '\\\n\t\u0001' })));
  const text = JSON.stringify({ result: { artifacts: [{ content }] } });
  assert.is(((await parseJsonSliced(text)) as { result: { artifacts: { content: string }[] } }).result.artifacts[0]?.content, content);
  const good = '\\"'.repeat(9_000);
  for (const [bad, what] of [['\\x', 'invalid escape'], ['\\u12g4', 'four hex digits'], ['\u0001', 'control character'], ['', 'unterminated']] as const) {
    const broken = `{"a":"${good}${bad}`;
    const closed = bad === '' ? broken : `${broken}"}`;
    try {
      await parseJsonSliced(closed, { nativeChars: 0 });
      assert.unreachable(`accepted ${what}`);
    } catch (error) {
      assert.instance(error, SyntaxError, what);
      assert.match((error as Error).message, new RegExp(what), what);
      // Where: just past the 9,000 good escapes (column counted from 1).
      const column = Number(/column (\d+)/.exec((error as Error).message)?.[1]);
      assert.ok(column >= 6 + good.length && column <= 6 + good.length + 6, `${what} at column ${column}`);
    }
  }
});

Sliced.run();
