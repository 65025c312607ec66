/**
 * A call from the interpreter to a built-in (`Math.max(a)`, `s.slice(1)`, `return f(x)`) goes
 * straight to the C function (build/engine/patches/calls.ts): every kind of callee on the way must
 * behave as V8's: built-ins given fewer arguments than they declare, built-in constructors called
 * without `new`, built-ins that throw or call back into JS, bound and JS functions, tail calls,
 * and a callee that is not a function.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  'use strict';
  const out = [];
  const attempt = (g) => { try { return g(); } catch (e) { return e.constructor.name; } };
  const max = Math.max, slice = String.prototype.slice, parse = JSON.parse;
  out.push(max(), max(3), max(3, 9, 4), Math.min(2, 1), 'abc'.slice(1), slice.call('abcd', 2), 'a-b'.split('-').length);
  out.push([3, 1, 2].sort().join(), [1, 2, 3].map((x) => x * 2).join(), [1, 2].reduce((a, b) => a + b));
  out.push(attempt(() => parse('{bad')), attempt(() => Map()), attempt(() => Promise()), attempt(() => (void 0)()), attempt(() => ({}).nope()));
  out.push(attempt(() => [1].forEach((x) => { throw new RangeError('in callback ' + x); })));
  out.push(typeof Object(), Number('12'), String(12), Boolean(0), Array(3).length, Date.length, typeof Symbol('s'));
  const bound = Math.max.bind(null, 5), jsBound = function (a, b) { return [this === undefined, a, b]; }.bind(undefined, 1);
  out.push(bound(2), bound(7), jsBound(2).join());
  const tail = (s) => s.toUpperCase(), tailMethod = (a) => a.concat([9]);
  function tailCall(s) { return tail(s); }
  function tailBuiltin(s) { return s.repeat(2); }
  function tailCallOf(g, x) { return g(x); }
  out.push(tailCall('x'), tailBuiltin('ab'), tailMethod([1]).join(), tailCallOf(Math.abs, -4), tailCallOf(parseInt, '42px'));
  const obj = { n: 3, get() { return this.n; } };
  out.push(obj.get(), Reflect.apply(obj.get, { n: 4 }, []), Object.prototype.toString.call([]), Array.prototype.join.call({ length: 2, 0: 'a', 1: 'b' }, '+'));
  out.push(Object.keys({ a: 1, b: 2 }).join(), Object.getPrototypeOf([]) === Array.prototype, Array.isArray([]), isNaN('x'));
  let deep = 0;
  const recurse = (n) => (n === 0 ? Math.max(deep, 1) : (deep++, [n - 1].map(recurse)[0]));
  out.push(recurse(200), deep);
  Host.outputString(JSON.stringify(out));
};`;

const calls = suite('engine :: calls to built-ins from the interpreter (patches/calls.ts)');

calls('should call every kind of function from a plain and a method call as V8 does', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f'));
  assert.equal(v8.slice(0, 7), [null, 3, 9, 1, 'bc', 'cd', 2]);
  assert.equal(v8.slice(10, 16), ['SyntaxError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'RangeError']);
  assert.equal(JSON.parse(run('f')), v8);
});

calls.run();
