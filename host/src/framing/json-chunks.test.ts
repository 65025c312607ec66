import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonChunks, PRETTY_DEPTH } from './json-chunks.ts';

const text = (value: unknown, options = {}) => [...jsonChunks(value, options)].join('');

/** A seeded generator of JSON values (mulberry32), with strings that need escaping. */
function values(seed: number): () => unknown {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const strings = ['', 'a', 'quote " back \\ slash', 'tab\tnew\nline', '√é😀', 'x'.repeat(40)];
  const make = (depth: number): unknown => {
    const r = next();
    if (depth > 6 || r < 0.35) return [null, true, false, 0, -1.5, 1e21, strings[Math.floor(next() * strings.length)]][Math.floor(next() * 7)];
    const n = Math.floor(next() * 5);
    if (r < 0.65) return Array.from({ length: n }, () => make(depth + 1));
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}${strings[i % strings.length]}`, make(depth + 1)]));
  };
  return () => make(0);
}

const Chunks = suite('jsonChunks');

Chunks('should write what JSON.stringify writes, compact and indented, on 2,000 seeded values :: model', () => {
  const next = values(31);
  for (let i = 0; i < 2_000; i++) {
    const value = next();
    assert.is(text(value), JSON.stringify(value));
    assert.is(text(value, { indent: 2 }), JSON.stringify(value, null, 2));
    assert.is(text(value, { indent: 2, chunkChars: 7 }), JSON.stringify(value, null, 2), 'the same text in small chunks');
  }
});

Chunks('should leave out what JSON.stringify leaves out and call toJSON', () => {
  const value = { a: undefined, b: () => 1, c: [undefined, Symbol('s')], d: new Date(0), e: NaN, f: { toJSON: (key: string) => `key ${key}` } };
  assert.is(text(value, { indent: 2 }), JSON.stringify(value, null, 2));
  assert.throws(() => text({ n: 1n }), TypeError);
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => text(cycle), TypeError);
});

Chunks('should not amplify a deep and wide value: indentation stops at its depth :: hostile', () => {
  // 140,000 leaves 1,990 levels down: indented fully, 557 million characters, more than V8's longest string.
  let value: unknown = Array.from({ length: 140_000 }, () => 0);
  for (let i = 0; i < 1_990; i++) value = [value];
  let longest = 0;
  let total = 0;
  for (const chunk of jsonChunks(value, { indent: 2 })) {
    longest = Math.max(longest, chunk.length);
    total += chunk.length;
  }
  const compact = JSON.stringify(value).length;
  assert.ok(total < compact + PRETTY_DEPTH * PRETTY_DEPTH * 4, `${total} characters for ${compact} compact`);
  assert.ok(longest < 2 * 64 * 1024, `a chunk of ${longest}`);
  assert.is(JSON.stringify(JSON.parse(text(value, { indent: 2 }))), JSON.stringify(value));
});

Chunks('should write a long string in slices, never splitting a surrogate pair', () => {
  const long = '😀'.repeat(100_000) + '\u0007';
  const chunks = [...jsonChunks({ s: long }, { chunkChars: 1001 })];
  assert.ok(chunks.length > 100);
  assert.ok(chunks.every((c) => c.length < 2_100));
  assert.equal(JSON.parse(chunks.join('')), { s: long });
});

Chunks('should escape what a terminal obeys and keep the value :: terminal', () => {
  const value = { '\u202ekey': ['\x1b]52;c;AAAA\x07', '\u009b2J', 'e\u0301' + '\u0301'.repeat(100), '\ud800'] };
  const out = text(value, { indent: 2 });
  assert.not.match(out, /[\x1b\x07\u009b\u202e]|[\ud800-\udfff]/);
  assert.equal(JSON.parse(out), value);
});

Chunks.run();
