/**
 * `a[i]` and `a[i] = v` on integer typed arrays in the interpreter loop (build/engine/patches/typed-arrays.ts):
 * what the inline paths take (Uint8Array, Uint16Array, Int32Array, Uint32Array, an int index in
 * bounds, an int32 value) and what they leave to the generic path (other classes, indexes past the
 * end or negative or not ints, doubles, strings, objects whose valueOf runs, a shrunk resizable
 * buffer) must read and write as V8 does; an immutable buffer is still not written.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const log = [];
  class Bytes extends Uint8Array {}
  const kinds = [Uint8Array, Uint16Array, Int32Array, Uint32Array, Bytes, Int8Array, Int16Array, Uint8ClampedArray, Float32Array, Float64Array];
  const values = [0, 1, -1, 255, 256, 65535, 65536, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 32 + 5, 1.5, -0, NaN, '7', '0x10', true, null, undefined,
    { valueOf() { log.push('valueOf'); return 9; } }];
  const indexes = [0, 3, 4, -1, 1.5, '2', 2 ** 31];
  const rows = [];
  for (const K of kinds) {
    const a = new K(4);
    const row = [];
    for (const v of values) {
      for (const i of indexes) {
        a[i] = v;
        row.push(String(a[i]));
      }
      a[1] += 3;
      a[2]++;
      row.push(a.join(' '));
      try { a[0](); } catch (e) { row.push(e.constructor.name); }
    }
    rows.push(row.join(','));
  }
  // a sum over the words in a loop, as SHA-256 and fflate run it
  const w = new Uint32Array(64), b = new Uint8Array(64);
  let sum = 0;
  for (let r = 0; r < 50; r++) {
    for (let i = 0; i < 64; i++) { w[i] = (w[(i + 63) & 63] ^ (i * 0x9e3779b9)) | 0; b[i] = w[i] + r; }
    for (let i = 0; i < 64; i++) sum = (sum + w[i] + b[i]) % 1000000007;
  }
  // a resizable buffer shrunk under a length-tracking and a fixed-length view, then grown again
  const buf = new ArrayBuffer(16, { maxByteLength: 32 });
  const tracking = new Uint32Array(buf), fixed = new Int32Array(buf, 0, 4);
  tracking[3] = 7; fixed[0] = -5;
  buf.resize(8);
  const shrunk = [tracking.length, fixed.length, tracking[3], fixed[0], tracking[1]];
  tracking[3] = 9; fixed[0] = 11; tracking[1] = 12;
  buf.resize(16);
  const grown = [...tracking, ...fixed];
  const proxied = new Proxy(new Uint8Array(2), {});
  proxied[0] = 300;
  Host.outputString(JSON.stringify({ rows, log: log.length, sum, shrunk, grown, proxied: proxied[0] }));
};

globalThis.immutable = () => {
  'use strict';
  const u = new Uint32Array(new ArrayBuffer(8).transferToImmutable());
  let threw = 'no';
  try { u[0] = 5; } catch (e) { threw = e.constructor.name; }
  Host.outputString(JSON.stringify({ value: u[0], threw }));
};`;

const ta = suite('engine :: typed array elements in the loop (patches/typed-arrays.ts)');

ta('should read and write integer typed arrays, and decline the rest, as V8 does', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f')) as { rows: string[]; shrunk: unknown[]; log: number };
  assert.ok(v8.rows[3]!.startsWith('0,0,undefined,undefined,undefined,0,undefined')); // Uint32Array, value 0
  assert.equal(v8.shrunk, [2, 0, null, null, 0]);
  assert.is(JSON.parse(run('f')).log, v8.log);
  assert.equal(JSON.parse(run('f')), v8);
});

ta('should leave an immutable buffer unwritten', async () => {
  const { run } = await engineWith(SOURCE);
  assert.equal(JSON.parse(run('immutable')), { value: 0, threw: 'no' });
});

ta.run();
