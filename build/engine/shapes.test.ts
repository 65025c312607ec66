/**
 * Shape transitions kept for the next object (build/engine/patches/shapes.ts): objects built alike
 * share their intermediate shapes, and everything an object can do to its own shape afterwards
 * (delete, redefine, freeze, change its prototype, grow past the small shapes) must leave the
 * others as V8 leaves them. Then the count the edit is for, on the native build under callgrind:
 * the next object built alike takes the kept transitions instead of growing a shape of its own.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINE_CACHE_DIR } from './index.ts';
import { ensureNativeEngine } from './native.ts';
import { engineWith, inV8 } from './v8-compare.ts';

const run = promisify(execFile);
const VALGRIND = '/usr/bin/valgrind';

const SOURCE = String.raw`globalThis.f = () => {
  const out = [];
  const show = (o) => {
    const keys = Reflect.ownKeys(o).map(String).join(',');
    const d = Object.getOwnPropertyDescriptors(o);
    const flags = Object.keys(d).map((k) => k + ':' + (d[k].writable ? 'w' : '') + (d[k].enumerable ? 'e' : '') + (d[k].configurable ? 'c' : '') + (d[k].get ? 'g' : '') + (d[k].set ? 's' : '')).join(' ');
    const inKeys = [];
    for (const k in o) inKeys.push(k);
    let json;
    try { json = JSON.stringify(o); } catch (e) { json = e.constructor.name; }
    return [keys, flags, inKeys.join(','), json, Object.isExtensible(o), Object.isFrozen(o), Object.getPrototypeOf(o) === Object.prototype].join('|');
  };
  const build = (i) => { const o = {}; o.id = i; o.name = 'n' + i; o.kind = 'k'; o.doc = ''; o.list = [i]; return o; };
  const a = [];
  for (let i = 0; i < 6; i++) a.push(build(i));
  delete a[1].name;
  Object.defineProperty(a[2], 'kind', { writable: false });
  Object.freeze(a[3]);
  Object.setPrototypeOf(a[4], { inherited: 1 });
  Object.defineProperty(a[5], 'doc', { get() { return 'got'; }, enumerable: true, configurable: true });
  for (let i = 6; i < 12; i++) a.push(build(i));
  a[7].extra = 1;
  a[8].name = 'renamed';
  delete a[9].list;
  a[9].list = 'again';
  for (const o of a) out.push(show(o));
  // writes to a frozen or redefined twin must not reach the others
  try { 'use strict'; a[3].id = 99; } catch (e) { out.push(e.constructor.name); }
  a[2].kind = 'changed';
  (function () { 'use strict'; try { a[2].kind = 'strict'; } catch (e) { out.push(e.constructor.name); } })();
  a[6].kind = 'free';
  out.push(a[2].kind, a[6].kind, a[3].id, a[10].kind, a[4].inherited, a[5].doc);
  // the same keys in other orders, other flags, symbols, indexes and accessors
  const sym = Symbol('s');
  const orders = [];
  let seed = 7;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  for (let i = 0; i < 400; i++) {
    const o = {};
    const n = 1 + rnd(keys.length);
    for (let j = 0; j < n; j++) {
      const k = keys[rnd(keys.length)];
      if (rnd(9) === 0) Object.defineProperty(o, k, { value: j, enumerable: rnd(2) === 0, writable: true, configurable: true });
      else if (rnd(13) === 0) delete o[k];
      else o[k] = j;
    }
    if (rnd(7) === 0) o[sym] = i;
    if (rnd(11) === 0) o[rnd(3)] = 'index';
    if (rnd(17) === 0) Object.defineProperty(o, 'acc', { get() { return i; }, enumerable: true });
    orders.push(show(o));
  }
  out.push(orders.join('\n'));
  // objects that grow past the small shapes, shrink and grow again
  const big = [];
  for (let i = 0; i < 4; i++) {
    const o = {};
    for (let j = 0; j < 40; j++) o['p' + j] = j;
    for (let j = 0; j < 40; j += 3 + i) delete o['p' + j];
    for (let j = 0; j < 10; j++) o['q' + j] = i;
    big.push(show(o));
  }
  out.push(big.join('\n'));
  // class instances, fields, private fields, constructors that return early
  class P { #s = 1; x = 1; constructor(y) { this.y = y; if (y > 2) return; this.z = y; } get s() { return this.#s; } }
  class Q extends P { w = 2; constructor(y) { super(y); this.v = y; } }
  const ps = [];
  for (let i = 0; i < 5; i++) ps.push(new P(i), new Q(i));
  ps[0].z = 'set';
  delete ps[2].x;
  out.push(ps.map((p) => show(p) + '|' + p.s).join('\n'));
  // object literals with computed and spread members, and JSON.parse's objects
  const lits = [];
  for (let i = 0; i < 5; i++) lits.push({ a: i, ['c' + (i % 2)]: i, ...{ s: i }, b: i, get g() { return i; } });
  lits[1].a = 'x';
  out.push(lits.map(show).join('\n'));
  const parsed = JSON.parse('[{"a":1,"b":2,"c":3},{"a":1,"b":2,"c":3},{"b":1,"a":2},{"a":1,"b":2,"c":3,"d":4}]');
  delete parsed[0].b;
  parsed[1].z = 0;
  out.push(parsed.map(show).join('\n'));
  Host.outputString(out.join('\n'));
};`;

const shapes = suite('engine :: shape transitions kept (patches/shapes.ts)');

shapes('should give objects built alike, then changed one by one, the properties V8 gives them', async () => {
  const { run: inEngine } = await engineWith(SOURCE);
  const v8 = inV8(SOURCE, 'f');
  assert.ok(v8.includes('id,name,kind,doc,list|'), v8.slice(0, 200));
  assert.is(inEngine('f'), v8);
});

/** Instructions of a native run of `script` under callgrind, with its argument. */
async function instructions(runner: string, script: string, arg: string): Promise<number> {
  const { stderr } = await run(VALGRIND, ['--tool=callgrind', '--callgrind-out-file=/dev/null', runner, script, arg], { maxBuffer: 16 << 20 });
  const n = /Collected : (\d+)/.exec(stderr)?.[1];
  if (n === undefined) throw new Error(`callgrind reported no count: ${stderr.slice(-300)}`);
  return Number(n);
}

shapes('should build the next object alike through the kept transitions (native instructions per object)', async () => {
  if (!existsSync(VALGRIND)) {
    console.log('  (skipped: no valgrind)');
    return;
  }
  const runner = await ensureNativeEngine({ cacheDir: ENGINE_CACHE_DIR });
  const dir = mkdtempSync(join(tmpdir(), 'mep-shapes-'));
  try {
    const script = join(dir, 'objects.js');
    writeFileSync(script, `var N = Number(scriptArgs[1]), keep = [];
function make(i) { var o = {}; o.id = i; o.name = 'n'; o.kind = 'record'; o.doc = ''; o.fields = null; o.args = i; return o; }
for (var i = 0; i < N; i++) { keep.push(make(i)); if (keep.length > 300) keep.length = 0; }
print(keep.length);\n`);
    const perObject = ((await instructions(runner, script, '11000')) - (await instructions(runner, script, '1000'))) / 10000;
    // Each object grew a shape of its own before (clone, reallocations, rehashing): about 6,300
    // instructions an object on this script; through the kept transitions about 4,500.
    assert.ok(perObject < 5400, `${perObject.toFixed(0)} instructions per object built alike`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

shapes.run();
