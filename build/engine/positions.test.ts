/**
 * The engine's position edits (build/engine/patches/positions.ts) against V8: the same script
 * (guest.js, its first line minified) throws in nested functions, arrows, methods, template
 * literals, expressions over several lines, calls of every shape (a name, a property, a keyword
 * property, a computed callee, a call's result, a tagged template, spread arguments, new with and
 * without arguments, super), property reads and stores, destructuring patterns of undefined
 * (object, nested, parameter, empty, for-of, array); each error's first frames' `line:col`
 * must be V8's. Stock quickjs-ng 0.17 named the last argument of a call, the start of a property
 * chain, the name before a ( and counted the first line's columns from 0.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runInNewContext } from 'node:vm';
import { engineWith } from './v8-compare.ts';

const SOURCE = String.raw`function m1(o){return o.x.y}function m2(o){o.x.y=1}function m3(f){return f()(1)}function m4(o){return o['k'](2)}function m5(){throw new Error('x')}function m6(o){return o.p.q.r}
function nested() {
  function inner(m) {
    if (m > 0) throw new Error('nested ' + m);
  }
  return inner(1);
}
const arrow = (x) => x.v.w;
class Box {
  constructor(value) { this.value = value; }
  method() { return this.value.a.b; }
}
function template(o) {
  return ${'`'}hello ${'$'}{o.name.first} and more${'`'};
}
function multiline(a) {
  const total = sum(
    a,
    a * 2,
    (null).z,
  );
  return total;
}
function sum(...xs) { return xs.reduce((p, q) => p + q, 0); }
function thrower() { throw new RangeError('thrown'); }
function callsThrower(items) {
  return items.map(
    (i) => i + thrower(),
  );
}
function keyedCall(o) { return o['f'](1); }
function tag(s) { throw new Error('tag'); }
function tagged() { return tag${'`'}a${'$'}{1}b${'`'}; }
function spread(xs) { return thrower(...xs); }
class Thrower { constructor() { throw new Error('ctor'); } }
function newSpread(xs) { return new Thrower(...xs); }
class Derived extends Thrower { constructor() { super(); } }
function superCall() { return new Derived(); }
function newNoParens() { return new Thrower; }
function keywordProperty(p) { return p.catch(1); }
function privateName() { class P { #m() { throw new Error('p'); } run() { return this.#m(); } } return new P().run(); }
function iife() { return (function () { throw new Error('iife'); })(); }
function store(o) {
  o
    .x
    .y = 3;
}
function native() { return JSON.parse('{bad'); }
function destructure(o) { const { x: { y } } = o; return y; }
function parameter({ a, b }) { return a + b; }
function empty(o) { const {} = o; }
function forOf(list) { for (const { n } of list) {} }
function arrayPattern(o) { const { x: [ y ] } = o; return y; }
function chained(o) {
  return o
    .first()
    .second();
}
const cases = {
  m1: () => m1({}), m2: () => m2({}), m3: () => m3(() => 1), m4: () => m4({}), m5, m6: () => m6({ p: {} }),
  nested, arrow: () => arrow({}), method: () => new Box({}).method(), template: () => template({}), multiline: () => multiline(1),
  callsThrower: () => callsThrower([1]), keyedCall: () => keyedCall({ f() { throw new Error('kf'); } }), tagged, spread: () => spread([1]),
  newSpread: () => newSpread([1]), superCall, newNoParens, keywordProperty: () => keywordProperty({ catch() { throw new Error('kw'); } }),
  privateName, iife, store: () => store({}), native, chained: () => chained({ first() { return {}; } }),
  destructure: () => destructure({}), parameter: () => parameter(), empty: () => empty(null), forOf: () => forOf([1, undefined]), arrayPattern: () => arrayPattern({}),
};
globalThis.f = () => {
  const out = [];
  for (const [name, run] of Object.entries(cases)) {
    try { run(); out.push(name + ': no error'); } catch (e) {
      const at = String(e.stack).split('\n').map((l) => /guest\.js:(\d+:\d+)/.exec(l)?.[1]).filter(Boolean).slice(0, 3);
      out.push(name + ': ' + at.join(' '));
    }
  }
  Host.outputString(out.join('\n'));
};`;

/** V8's answer for the script as guest.js (positions count from its first line, as the engine's). */
function inV8AsGuest(source: string): string {
  let out = '';
  runInNewContext(`${source}\nf();`, { Host: { outputString: (s: string) => void (out = s) } }, { filename: 'guest.js' });
  // Without the frame of the f() added to run it (the host calls f in the engine).
  const added = new RegExp(` ${source.split('\n').length + 1}:1$`, 'gm');
  return out.replace(added, '');
}

const positions = suite('engine :: stack positions as V8 reports them (patches/positions.ts)');

positions('should report every frame at the line:col V8 reports for the same script', async () => {
  const { run } = await engineWith(SOURCE);
  const engine = run('f').split('\n');
  const v8 = inV8AsGuest(SOURCE).split('\n');
  assert.is(engine.length, v8.length);
  assert.is(v8.length, 29);
  assert.ok(v8.every((l) => /: \d+:\d+/.test(l)), v8.join('\n'));
  for (let i = 0; i < v8.length; i++) assert.is(engine[i], v8[i]);
});

positions.run();
