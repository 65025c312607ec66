import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonChunks, PRETTY_DEPTH } from './json-chunks.ts';
import { slicesOf, wholeJsonText } from './json-whole.ts';

const Whole = suite('wholeJsonText');

/** An IR-like value: modules of named types, nested a dozen levels, about 100 KB indented. */
function irLike(): unknown {
  const type = (n: number): unknown => (n === 0 ? ['Reference', {}, [['morphir'], ['s', 'd', 'k']], ['string']] : ['Tuple', {}, [type(n - 1), type(n - 1)]]);
  const module = (i: number): unknown => [[['m'], [`mod${i}`]], { access: 'Public', value: { types: [[['t'], ['√é😀']], type(3)], doc: null, ok: true, n: -1.5e-7 } }];
  return { formatVersion: 3, distribution: ['Library', [['my']], {}, { modules: Array.from({ length: 40 }, (_, i) => module(i)) }] };
}

Whole('should write a small plain value with one JSON.stringify, the same text the chunked walk writes :: model', () => {
  const value = irLike();
  const whole = wholeJsonText(value, 2, PRETTY_DEPTH);
  assert.is(whole, JSON.stringify(value, null, 2));
  assert.is([...jsonChunks(value, { indent: 2 })].join(''), whole);
  assert.is(wholeJsonText(value, 0, PRETTY_DEPTH), JSON.stringify(value));
});

Whole('should leave to the chunked walk what it writes differently or bigger :: hostile', () => {
  let deep: unknown = 0;
  for (let i = 0; i <= PRETTY_DEPTH; i++) deep = [deep];
  assert.is(wholeJsonText(deep, 2, PRETTY_DEPTH), undefined, 'deeper than the indented levels: compact below them');
  assert.is.not([...jsonChunks(deep, { indent: 2 })].join(''), JSON.stringify(deep, null, 2));
  assert.is(wholeJsonText((deep as unknown[])[0], 2, PRETTY_DEPTH), JSON.stringify((deep as unknown[])[0], null, 2), 'one level less is indented all the way');
  assert.is(wholeJsonText({ s: '\u009b2J \u202e' }, 2, PRETTY_DEPTH), undefined, 'a C1 control or a bidi override, which JSON.stringify writes raw');
  assert.is(wholeJsonText({ s: 'e' + '\u0301'.repeat(40) }, 2, PRETTY_DEPTH), undefined, 'a run of combining marks');
  for (const odd of [{ a: undefined }, [() => 1], { d: new Date(0) }, { n: NaN }, { t: { toJSON: () => 1 } }, new Map(), { b: 1n }]) {
    assert.is(wholeJsonText(odd, 2, PRETTY_DEPTH), undefined, `${String(Object.keys(odd))}: not plain JSON data`);
  }
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.is(wholeJsonText(cycle, 2, PRETTY_DEPTH), undefined, 'a cycle runs out of budget');
  assert.throws(() => [...jsonChunks(cycle)], TypeError);
});

Whole('should bound the one string before making it: a value shared a million times is not expanded :: hostile', () => {
  const leaf = { s: 'x'.repeat(1_000) };
  const shared = Array.from({ length: 1_000_000 }, () => leaf); // 8 MB in memory, 1 GB of JSON
  assert.is(wholeJsonText(shared, 2, PRETTY_DEPTH), undefined);
  assert.is(wholeJsonText({ s: 'x'.repeat(200_000) }, 2, PRETTY_DEPTH), undefined, 'counted as if every unit were escaped');
  assert.type(wholeJsonText({ s: 'x'.repeat(100_000) }, 2, PRETTY_DEPTH), 'string');
  const chunks = jsonChunks(shared, { indent: 2 });
  assert.ok((chunks.next().value as string).length < 2 * 64 * 1024, 'the chunked walk writes it piece by piece');
});

Whole('should hand the text on in slices that never split a surrogate pair', () => {
  const text = JSON.stringify({ s: '😀'.repeat(500) }, null, 2);
  for (const size of [1, 2, 7, 64]) {
    const slices = [...slicesOf(text, size)];
    assert.is(slices.join(''), text);
    assert.ok(slices.every((s) => s.length <= Math.max(2, size) && !/[\ud800-\udbff]$/.test(s)), `size ${size}`);
  }
  assert.ok([...jsonChunks({ s: '😀'.repeat(500) }, { chunkChars: 7 })].every((s) => s.length <= 7));
});

Whole.run();
