/**
 * JS-to-JS calls (`f(x)`, `o.m(x)`, `return f(x)`) as V8 makes them, the ground any edit to the
 * interpreter's call path (issue 32: the callee run in its caller's loop, a cheaper entry) must
 * keep: exceptions through several frames (caught at each depth, in finally blocks, rethrown),
 * the stack-depth limit a catchable RangeError, the host's interrupt inside a deep chain of calls,
 * `arguments`, default and rest parameters, fewer and more arguments than declared, closures over
 * a callee's locals that outlive it, `this` in strict and sloppy callees, every kind of return
 * value, calls mixed with generators, async functions, constructors and calls from built-ins, and
 * the function names of Error.stack.
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngineRunner, ensureEngine } from './index.ts';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const out = [];
  const attempt = (g) => { try { return g(); } catch (e) { return e.constructor.name + (e.message.includes('bottom') ? ':' + e.message : ''); } };
  function thrower(n) { if (n === 0) throw new TypeError('at the bottom'); return thrower(n - 1) + 1; }
  function catcher(n) { try { return thrower(n); } catch (e) { return 'caught ' + n + ' ' + e.message; } }
  function middle(n) { try { return catcher(n) + '!'; } finally { out.push('finally ' + n); } }
  out.push(attempt(() => thrower(5)), middle(4), catcher(0));
  function rethrow(n) { try { return thrower(n); } catch (e) { e.message += ' via ' + n; throw e; } }
  function outer(n) { return rethrow(n) + rethrow(n + 1); }
  out.push(attempt(() => outer(3)));
  function argsOf() { return arguments.length + ':' + Array.prototype.join.call(arguments, ','); }
  function sloppyArgs(a, b) { a = 9; return arguments[0] + ',' + b; }
  function strictArgs(a) { 'use strict'; a = 9; return arguments[0]; }
  function defaults(a, b = a + 1, ...rest) { return [a, b, rest.length].join(); }
  function few(a, b, c, d) { const l = 1; return [a, b, c, d, l].map(String).join(); }
  out.push(argsOf(), argsOf(1, 'x', null), sloppyArgs(1, 2), sloppyArgs(1), strictArgs(3), defaults(1), defaults(1, 5, 6, 7), few(1), few(1, 2, 3, 4, 5, 6));
  function counter() { let n = 0; function inc() { return ++n; } return { inc, get: () => n }; }
  const c1 = counter(), c2 = counter();
  c1.inc(); c1.inc(); c2.inc();
  out.push(c1.get(), c2.get(), [1, 2, 3].map(counter).length);
  function adders() { const fs = []; for (let i = 0; i < 3; i++) fs.push(() => i * 10); return fs; }
  out.push(adders().map((g) => g()).join());
  function sloppyThis() { return typeof this; }
  function strictThis() { 'use strict'; return this === undefined ? 'undefined' : typeof this; }
  const o = { n: 7, m() { return this.n; }, s: strictThis, l: sloppyThis, nested() { return this.m() + [1].map(function () { return typeof this; })[0]; } };
  out.push(sloppyThis(), strictThis(), o.m(), o.s(), o.l(), o.nested(), strictThis.call(5), sloppyThis.call(5));
  const values = [undefined, null, true, 0, -0, 1.5, 2 ** 40, 'str', 10n, Symbol.iterator, o, [1], () => 1];
  function ret(i) { return values[i]; }
  function noReturn() { }
  function tailRet(i) { return ret(i); }
  out.push(values.map((v, i) => ret(i) === v && tailRet(i) === v && Object.is(ret(i), v)).join(), noReturn(), typeof tailRet(12));
  function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
  function sum(n) { return n === 0 ? 0 : n + sum(n - 1); }
  out.push(fib(18), sum(1000));
  function* gen(n) { for (let i = 0; i < n; i++) yield helper(i); }
  function helper(i) { return i * 2; }
  class K { constructor(x) { this.x = plain(x); } get g() { return plain(this.x); } }
  function plain(x) { return x + 1; }
  out.push([...gen(4)].join(), new K(1).x, new K(2).g, attempt(() => K()), attempt(() => (0, o.nope)()), attempt(() => undefined.x));
  async function asyncCallee() { return helper(21); }
  asyncCallee().then((v) => out.push('async ' + v));
  out.push([3, 1, 2].sort((a, b) => plain(a) - plain(b)).join(), JSON.stringify({ a: 1 }, (k, v) => (k === 'a' ? plain(v) : v)));
  function named() { return new Error('e').stack.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('at ')).map((l) => l.split(' ')[1]); }
  function viaNamed() { return named(); }
  function viaMap() { return [0].map(function mapped() { return viaNamed(); })[0]; }
  out.push(viaNamed().slice(0, 2).join(), viaMap().slice(0, 3).join());
  function stackOf(n) { if (n === 0) { try { null.x; } catch (e) { return e.stack.split('\n').filter((l) => l.trim().startsWith('at ')).length; } } return stackOf(n - 1); }
  out.push(stackOf(4) - stackOf(1));
  let depth = 0;
  function down() { depth++; down(); }
  let deep;
  try { down(); } catch (e) { deep = e instanceof RangeError && depth > 1000; }
  out.push(deep, sum(10));
  Host.outputString(JSON.stringify(out));
};`;

const calls = suite('engine :: JS-to-JS calls, compared with V8');

calls('should call, return and throw through plain and other functions as V8 does', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f'));
  assert.equal(v8.slice(0, 4), ['finally 4', 'TypeError:at the bottom', 'caught 4 at the bottom!', 'caught 0 at the bottom']);
  assert.equal(v8.slice(-5, -3), ['named,viaNamed', 'named,viaNamed,mapped']);
  const ours = JSON.parse(run('f'));
  // a stack 3 calls deeper has 3 more lines; V8's are cut at Error.stackTraceLimit (10) under the test runner
  assert.is(ours.at(-3), 3);
  v8[v8.length - 3] = 3;
  assert.equal(ours, v8);
});

calls('should stop a deep chain of calls when the host interrupts, and leave the engine usable', async () => {
  const chain = String.raw`globalThis.spin = () => { function a(n) { return n === 0 ? b(0) : a(n - 1) + 1; } function b(k) { for (;;) k = c(k); } function c(k) { return k + 1; } a(200); };
globalThis.after = () => { function sq(x) { return x * x; } Host.outputString(String(sq(sq(3)))); };`;
  let polls = 0, stop = true;
  const r = await createEngineRunner(readFileSync((await ensureEngine()).wasmPath), { interrupt: () => stop && ++polls > 50 });
  const c = r.compile(chain);
  if (!c.ok) throw new Error(c.message);
  assert.match(r.invoke(c.bytecode, 'spin').error ?? 'completed', /^InternalError: interrupted/);
  stop = false;
  assert.is(new TextDecoder().decode(r.invoke(c.bytecode, 'after').output ?? new Uint8Array()), '81');
});

calls.run();
