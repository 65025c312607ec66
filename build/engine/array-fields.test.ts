/**
 * A named property read on an array in the interpreter (`a.push`, `a.length`, `arguments.callee`;
 * build/engine/patches/interpreter.ts) walks the prototype chain itself past a fast array instead
 * of calling the generic read: every kind of array and every kind of property on the way must read
 * as V8 reads it, getters, proxies and typed arrays included.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const show = (v) => (typeof v === 'function' ? 'function ' + v.name : v === undefined ? 'undefined' : v);
  const a = [1, 2, 3];
  a.own = 'own';
  Object.defineProperty(Array.prototype, 'mepCount', { get() { return 'getter:' + this.length; }, configurable: true });
  Object.prototype.mepInherited = 'from Object.prototype';
  Object.prototype.Infinity = 'Infinity from Object.prototype';
  const viaProxy = [4, 5];
  Object.setPrototypeOf(viaProxy, new Proxy([], { get: (t, k, r) => 'proxy:' + String(k) + ':' + Array.isArray(r) + ':' + r.length }));
  const sparse = [];
  sparse[100000] = 1;
  sparse.named = 'sparse';
  const frozen = Object.freeze([7, 8]);
  const typed = new Uint8Array(3);
  typed.extra = 'typed';
  function args() { return [arguments.length, show(arguments.callee), arguments.mepCount, arguments.own]; }
  function strictArgs() { 'use strict'; return [arguments.length, show(arguments.slice), arguments.mepInherited]; }
  const out = [
    a.length, show(a.push), a.own, show(a.missing), a.mepCount, a.mepInherited, a.map((x) => x * 2).join(),
    [].length, show([].concat), [].mepCount,
    viaProxy.length, viaProxy.anything, viaProxy.mepCount, viaProxy[0],
    sparse.length, sparse.named, sparse.mepCount,
    frozen.length, frozen.mepCount, frozen.indexOf(8),
    typed.length, typed.extra, typed.mepCount, typed.mepInherited, show(typed.fill), typed.Infinity, a.Infinity,
    ...args(1, 2), ...strictArgs(3),
    show(Array.prototype.push), Array.prototype.length, Array.prototype.mepInherited,
  ];
  a.push(4);
  out.push(a.length, a.join());
  delete Array.prototype.mepCount;
  out.push(a.mepCount === undefined, [].mepCount === undefined);
  Object.defineProperty(Array.prototype, 'mepThrows', { get() { throw new RangeError('from a getter'); }, configurable: true });
  try { out.push(a.mepThrows); } catch (e) { out.push(e.constructor.name + ': ' + e.message); }
  delete Array.prototype.mepThrows;
  delete Object.prototype.mepInherited;
  delete Object.prototype.Infinity;
  Host.outputString(JSON.stringify(out));
};`;

const fields = suite('engine :: named properties of arrays (patches/interpreter.ts)');

fields('should read every named property of arrays, arguments and typed arrays as V8 does', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f'));
  assert.equal(v8.slice(0, 5), [3, 'function push', 'own', 'undefined', 'getter:3']);
  assert.equal(v8[11], 'proxy:anything:true:2');
  assert.equal(JSON.parse(run('f')), v8);
});

fields.run();
