/**
 * A call to a small pure function of numbers is evaluated without a frame of the interpreter
 * (build/engine/patches/leaf-calls.ts), and declines on anything it does not do exactly: every operand
 * kind (ints, doubles past 2^31, NaN, infinities, huge doubles, -0, strings, objects with
 * valueOf), int32 overflow, missing arguments, `arguments`, closures, constructors and throws must
 * give what V8 gives.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const show = (v) => (Object.is(v, -0) ? '-0' : typeof v === 'number' ? String(v) : typeof v + ':' + String(v));
  // A function the evaluator declines once is called as usual from then on: each case gets new
  // functions (new bytecode), so that every operand meets the evaluator.
  const make = () => ({
    rotr: new Function('word', 'shift', 'return (word << (32 - shift)) | (word >>> shift);'),
    Chi: new Function('a', 'b', 'c', 'return (a & b) ^ (~a & c);'),
    Maj: new Function('a', 'b', 'c', 'return (a & b) ^ (a & c) ^ (b & c);'),
    shr: new Function('a', 'b', 'return a >>> b;'),
    sar: new Function('a', 'b', 'return a >> b;'),
    add: new Function('a', 'b', 'return a + b;'),
    sub: new Function('a', 'b', 'return a - b;'),
    same: new Function('a', 'return a;'),
    not: new Function('a', 'return ~a;'),
  });
  let { rotr, Chi, Maj, shr, sar, add, sub, same, not } = make();
  function big() { return 100000 + 70000; }
  function wide() { return 1 << 31; }
  function manyArgs(a, b, c, d, e) { return a ^ b ^ c ^ d ^ e; }
  function usesArguments(a) { return a + arguments.length; }
  let captured = 5;
  function closure(a) { return a + captured; }
  class K { constructor(a) { this.a = a; } }
  const arrow = (a, b) => a | b;
  let calls = 0;
  const obj = { valueOf() { calls++; return 12; } };
  const values = [0, 1, -1, 7, 0x7fffffff, -0x80000000, 0x80000000, 0xffffffff, 2 ** 32 + 5, 2 ** 53, -(2 ** 53) - 2, 1e19, -1e19, 1e300,
    1.5, -1.5, -0, NaN, Infinity, -Infinity, '12', '0x10', null, undefined, true, obj, 12345678901, -2.5e9];
  const out = [];
  for (const v of values) {
    for (const s of [0, 1, 7, 31, 32, 33, -1, 1.9, '3']) {
      ({ rotr, shr, sar } = make());
      out.push(show(rotr(v, s)), show(shr(v, s)), show(sar(v, s)));
    }
    for (const w of [3, 0x9abcdef0, -5, 2 ** 31 - 1]) {
      ({ Chi, Maj, add, sub } = make());
      out.push(show(Chi(v, w, 0x5a5a5a5a)), show(Maj(w, v, 0x12345678)), show(add(v, w)), show(sub(v, w)));
      ({ add, sub } = make());
      out.push(show(add(w, v)), show(sub(w, v)));
    }
    ({ same, not } = make());
    out.push(show(same(v)), show(not(v)), show(arrow(v, 1)), show(manyArgs(v, 1, 2, 4, 8)), show(usesArguments(v)), show(closure(v)));
  }
  ({ rotr, Chi, Maj, shr, add, sub, same } = make());
  out.push(show(add(0x7fffffff, 1)), show(sub(-0x80000000, 1)), show(add(-0x80000000, -0x80000000)), show(big()), show(wide()));
  out.push(show(rotr(5)), show(Chi(1, 2)), show(add()), show(same()), show(manyArgs(1, 2, 3)), show(rotr(1, 2, 3, 4)));
  out.push(calls, show(rotr(0x80000000, 1)), show(shr(-1, 0)), show(shr(-2, 0)));
  try { K(1); out.push('no throw'); } catch (e) { out.push(e.constructor.name); }
  const throwing = { valueOf() { throw new RangeError('from valueOf'); } };
  try { out.push(rotr(throwing, 1)); } catch (e) { out.push(e.constructor.name + ': ' + e.message); }
  try { out.push(add(1n, 2n) === 3n); } catch (e) { out.push(e.constructor.name); }
  try { out.push(rotr(1n, 2)); } catch (e) { out.push(e.constructor.name); }
  ({ rotr, Chi, Maj } = make());
  let sum = 0;
  for (let i = 0; i < 2000; i++) sum = (sum + rotr(i * 2654435761, i & 31) + Chi(sum, i, ~i) + Maj(i, sum, 0xdeadbeef)) | 0;
  out.push(sum);
  Host.outputString(JSON.stringify(out));
};`;

const leaf = suite('engine :: calls to small pure functions of numbers (patches/leaf-calls.ts)');

leaf('should give what V8 gives for every operand, argument count and kind of function', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f')) as unknown[];
  assert.ok(v8.includes('TypeError'), 'a class constructor called without new throws');
  assert.ok(v8.includes('RangeError: from valueOf'));
  assert.equal(JSON.parse(run('f')), v8);
});

/** Arguments the function does not read, more than eight of them, and a leaf call in tail position. */
const UNREAD = String.raw`globalThis.f = () => {
  'use strict';
  const show = (v) => (typeof v === 'number' ? String(v) : typeof v + ':' + String(v));
  const make = () => new Function('a', 'b', 'return (a << 3) ^ (b >>> 1);');
  let calls = 0;
  const obj = { valueOf() { calls++; return 12; } };
  const extras = [obj, 'x', 2n, Symbol('s'), null, undefined, [1], () => 1, 1.5, 0x80000000, -0];
  const out = [];
  for (const e of extras) {
    const g = make();
    out.push(show(g(5, 0x80000001, e)), show(g(5, 0x80000001, 1, e)), show(g(-3, 7)));
  }
  const nine = make();
  out.push(show(nine(1, 2, 3, 4, 5, 6, 7, 8, 9)), show(nine(1, 2)));
  const tail = make();
  const viaTail = (x) => tail(x, x + 1);
  function viaTail2(x) { return tail(x, 0xfffffff0); }
  for (let i = 0; i < 3; i++) out.push(show(viaTail(i * 0x40000000)), show(viaTail2(i)));
  // fresh functions dropped after one leaf call each: each is freed (the leak check at exit)
  let sum = 0;
  for (let i = 0; i < 500; i++) sum = (sum + make()(i, i * 3)) | 0;
  // objects passed as arguments the leaf does not read are let go once the call is over
  const kept = make();
  globalThis.held = [];
  for (let i = 0; i < 20; i++) {
    const o = i % 2 ? { i } : [i];
    held.push(new WeakRef(o));
    out.push(show(kept(i, 3, o)));
  }
  out.push(sum, calls);
  Host.outputString(JSON.stringify(out));
};
globalThis.g = () => Host.outputString(held.map((w) => typeof w.deref()).join());`;

leaf('should not read or free arguments a leaf does not take, and return from a tail call as V8', async () => {
  const { run } = await engineWith(UNREAD);
  const v8 = JSON.parse(inV8(UNREAD, 'f')) as unknown[];
  assert.equal(v8.at(-1), 0, 'no unread argument is converted');
  assert.equal(JSON.parse(run('f')), v8);
  assert.is(run('g'), Array(20).fill('undefined').join(), 'each unread argument freed (WeakRefs let go at the next call)');
});

/**
 * The leaf's compiled form (three-address operations, a rotation folded into one): rotations in
 * both orders and near misses that must not fold, a shift count whose `32 - s` overflows, arguments
 * read many times, and leaves past the compiler's limits (constants, operations, stack depth).
 */
const COMPILED = String.raw`globalThis.f = () => {
  const show = (v) => (Object.is(v, -0) ? '-0' : typeof v === 'number' ? String(v) : typeof v + ':' + String(v));
  const bodies = {
    rotr: '(x << (32 - s)) | (x >>> s)',
    rotrSwapped: '(x >>> s) | (x << (32 - s))',
    rotl: '(x << s) | (x >>> (32 - s))',
    notRot31: '(x << (31 - s)) | (x >>> s)',
    otherX: '(x << (32 - s)) | (y >>> s)',
    otherS: '(x << (32 - y)) | (x >>> s)',
    xorNotOr: '(x << (32 - s)) ^ (x >>> s)',
    sarNotShr: '(x << (32 - s)) | (x >> s)',
    subSwapped: '(x << (s - 32)) | (x >>> s)',
    nested: '((x << (32 - s)) | (x >>> s)) ^ ((y >>> s) | (y << (32 - s))) ^ (x - s)',
    rotOfSum: '((x + y) << (32 - s)) | ((x + y) >>> s)',
    manyUses: '(x & y) ^ (x | s) ^ (y - s) ^ (x + x) ^ ~(s >> 1)',
    nineConsts: 'x ^ 1 ^ 2 ^ 3 ^ 4 ^ 5 ^ 6 ^ 7 ^ 8 ^ 9',
    manyOps: Array.from({ length: 40 }, (_, i) => '(x ^ ' + (i + 100) + ')').join(' + ') + ' | 0',
    deep: 'x ^ (y ^ (s ^ (x ^ (y ^ (s ^ (x ^ (y ^ (s ^ (x ^ 12345)))))))))',
  };
  const values = [0, 1, -1, 5, 0x7fffffff, -0x80000000, 0x80000000, 0xffffffff, 0x12345678, 2 ** 32 + 5, 1.5, -0, NaN, Infinity, '7', null];
  const counts = [0, 1, 7, 31, 32, 33, -1, -0x7fffffe0, -0x7fffffdf, -0x80000000, 0x7fffffff, 2.5, 0x80000000];
  const out = [];
  for (const [name, body] of Object.entries(bodies)) {
    for (const x of values) {
      for (const s of counts) {
        // a new function each time: one that declines once is not compiled again
        const g = new Function('x', 's', 'y', 'return ' + body + ';');
        out.push(name + ':' + show(g(x, s, 0x9abcdef0)));
      }
    }
    const g = new Function('x', 's', 'y', 'return ' + body + ';');
    let sum = 0;
    for (let i = 0; i < 300; i++) sum = (sum + g(i * 2654435761, i & 63, i ^ 0x5bd1e995)) | 0;
    out.push(name + ' loop:' + show(sum));
  }
  Host.outputString(JSON.stringify(out));
};`;

leaf('should give what V8 gives for rotations, near misses and leaves past the compiler\'s limits', async () => {
  const { run } = await engineWith(COMPILED);
  const v8 = JSON.parse(inV8(COMPILED, 'f')) as string[];
  assert.ok(v8.includes('rotr:' + String((0x12345678 << 25) | (0x12345678 >>> 7))), 'a rotation of an int by 7');
  assert.equal(JSON.parse(run('f')), v8);
});

leaf.run();
