/**
 * The engine's bitwise-operator edit (build/engine/patches/numbers.ts) against V8: every operator
 * on ints, doubles that are and are not integers, values past 2^31, 2^32 and 2^53, the
 * negatives, -0, NaN and the infinities; and the operands the edit leaves to the generic path
 * (strings, booleans, objects with valueOf, BigInts, mixed BigInt and number).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const values = [0, -0, 1, -1, 7, 31, 32, 33, 1.5, -1.5, 2147483647, 2147483648, -2147483648, -2147483649, 4294967295, 4294967296, 4294967301,
    9007199254740991, -9007199254740993, 1e21, -1e21, 0.1, NaN, Infinity, -Infinity, 2 ** 64 + 2 ** 12,
    9.19e18, -9.19e18, 9.2e18, -9.2e18, 2 ** 62 + 2 ** 40 + 2 ** 31, -(2 ** 62) - 2 ** 33 - 5, 2 ** 63, -(2 ** 63), 4294967295.5, -4294967296.75, 5e-324];
  const ops = [(a, b) => a & b, (a, b) => a | b, (a, b) => a ^ b, (a, b) => a << b, (a, b) => a >> b, (a, b) => a >>> b];
  const out = [];
  for (const op of ops) for (const a of values) out.push(values.map((b) => op(a, b)).join(','));
  const others = ['12', '-3.7', true, null, undefined, { valueOf() { return 2 ** 31 + 3; } }, [5]];
  for (const op of ops) out.push(others.map((a) => op(a, 4294967295.0) + ':' + op(3.5, a)).join(','));
  let h = 0x6a09e667;
  for (let i = 0; i < 1000; i++) h = ((h >>> 7) | (h << 25)) ^ ((h + 0x9e3779b9) >>> 0) ^ (i * 2654435761);
  out.push(h, h >>> 0);
  const big = [];
  for (const op of [(a, b) => a & b, (a, b) => a << b, (a, b) => a >> b]) big.push(String(op(2n ** 70n + 5n, 3n)), String(op(-9n, 2n)));
  for (const op of ops) { try { op(1n, 1.5); big.push('no error'); } catch (e) { big.push(e.constructor.name); } }
  out.push(big.join(','));
  Host.outputString(out.join('\n'));
};`;

const bits = suite('engine :: bitwise operators on numbers that are not int32 (patches/numbers.ts)');

bits('should give what V8 gives for every operator on every kind of number, and leave other operands to the generic path', async () => {
  const { run } = await engineWith(SOURCE);
  const engine = run('f').split('\n');
  const v8 = inV8(SOURCE, 'f').split('\n');
  assert.is(engine.length, v8.length);
  for (let i = 0; i < v8.length; i++) assert.is(engine[i], v8[i], `line ${i}`);
});

bits.run();
