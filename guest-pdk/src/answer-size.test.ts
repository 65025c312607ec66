import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isOutOfMemory, jsonBytesAtLeast } from './answer-size.ts';

const Size = suite('guest pdk :: jsonBytesAtLeast');

/** A seeded generator (mulberry32), so a failure names a value that can be rebuilt. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 4 ? 6 : 9));
  const text = () => ['', 'a', 'é', '"\\\n', '😀x', 'long'.repeat(Math.floor(next() * 40))][Math.floor(next() * 6)] as string;
  switch (pick) {
    case 0: return text();
    case 1: return Math.floor(next() * 1e9) / 7;
    case 2: return next() < 0.5;
    case 3: return null;
    case 4: return undefined;
    case 5: return () => 1;
    case 6: return Array.from({ length: Math.floor(next() * 5) }, () => value(next, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--) out[text() + i] = value(next, depth + 1);
      return out;
    }
  }
}

Size('should never exceed the UTF-8 bytes JSON.stringify writes :: 2,000 seeded values', () => {
  const next = random(24);
  for (let i = 0; i < 2000; i++) {
    const v = { jsonrpc: '2.0', id: i, result: value(next, 0) };
    const actual = Buffer.byteLength(JSON.stringify(v));
    assert.ok(jsonBytesAtLeast(v) <= actual, `value ${i}: ${jsonBytesAtLeast(v)} > ${actual} for ${JSON.stringify(v)}`);
  }
});

Size('should be close for the answers that run out of memory: big strings', () => {
  const answer = { jsonrpc: '2.0', id: 1, result: { success: true, artifacts: [{ path: 'a.txt', content: 'x'.repeat(100_000) }], diagnostics: [] } };
  assert.is(jsonBytesAtLeast(answer), JSON.stringify(answer).length);
  const dated = { when: new Date(0) };
  assert.ok(jsonBytesAtLeast(dated) <= JSON.stringify(dated).length, 'toJSON counts as the least it can be');
});

Size('should tell out-of-memory errors of both engines from other errors', () => {
  const quickjs = new Error('out of memory');
  Object.defineProperty(quickjs, 'name', { value: 'InternalError' });
  assert.ok(isOutOfMemory(quickjs));
  let v8: unknown;
  try {
    'x'.repeat(2 ** 30);
  } catch (error) {
    v8 = error;
  }
  assert.ok(isOutOfMemory(v8), String(v8));
  assert.not.ok(isOutOfMemory(new TypeError('Converting circular structure to JSON')));
  assert.not.ok(isOutOfMemory('out of memory'));
});

Size.run();
