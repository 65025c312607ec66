/**
 * The TDZ checks a forward analysis proves passed are dropped (build/engine/patches/tdz.ts); every
 * read or assignment that can still meet an uninitialized `let`, `const` or `class` must throw the
 * ReferenceError V8 throws: straight-line code, branches, loops with per-iteration bindings,
 * `switch`, catch handlers, `finally`, generators and async functions across their suspensions,
 * closures, derived constructors' `this`, destructuring defaults, `eval`, and functions with more
 * lexical locals than the analysis tracks.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const SHARED = 7;
  const out = [];
  const run = (name, fn) => {
    try { const v = fn(); out.push(name + '=' + (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))); }
    catch (e) { out.push(name + ':' + e.constructor.name); }
  };
  run('read-before', () => { const r = x; let x = 1; return r; });
  run('write-before', () => { x = 2; let x = 1; return x; });
  run('typeof-before', () => { const t = typeof x; let x = 1; return t; });
  run('self', () => { let x = x + 1; return x; });
  run('self-closure', () => { let x = (() => x)(); return x; });
  run('hoisted-call', () => { const r = g(); let late = 3; function g() { return late; } return r; });
  run('hoisted-after', () => { let late = 3; function g() { return late; } return g(); });
  for (const c of [false, true]) {
    run('branch-' + c, () => { if (c) return q; let q = 4; return q; });
    run('assign-branch-' + c, () => { let z; if (c) z = 1; return z; });
    run('loop-' + c, () => { let s = 0; for (let i = 0; i < 3; i++) { if (c && i > 0) s += w; let w = i; s += w; } return s; });
    run('switch-' + c, () => { switch (c ? 1 : 0) { case 0: let v = 5; return v; case 1: return v; } });
    run('fallthrough-' + c, () => { switch (c ? 1 : 0) { case 0: let v = 5; case 1: return v; } });
    run('fallthrough-loop-' + c, () => { let s = 0; for (let i = 0; i < 3; i++) { switch (c ? i : 0) { case 0: let v = i + 1; case 1: case 2: s += v; } } return s; });
    run('catch-' + c, () => { try { if (c) throw 1; } catch (e) { return lateLet; } let lateLet = 6; return lateLet; });
    run('catch-init-' + c, () => { let r = 0; try { r = 1; if (c) throw 0; let inner = 2; r = inner; } catch (e) { return r; } return r; });
    run('finally-' + c, () => { try { if (c) return fin; } finally { out.push('fin ran'); } let fin = 7; return fin; });
    run('label-' + c, () => { let m = 0; blk: { if (c) break blk; let k = 8; m = k; } return m; });
    run('while-' + c, () => { let i = 0, s = ''; while (i < 4) { i++; if (i === 2) continue; if (c && i === 3) s += u; let u = i; s += u; } return s; });
    run('derived-' + c, () => { class A {} class B extends A { constructor() { if (c) super(); this.v = 1; } } return new B().v; });
    run('derived-arrow-' + c, () => { class A {} class B extends A { constructor() { const s = () => super(); if (c) s(); this.v = 2; } } return new B().v; });
    run('derived-return-' + c, () => { class A {} class B extends A { constructor() { if (c) super(); return undefined; } } return typeof new B(); });
    run('gen-' + c, () => { function* g() { if (c) yield q; yield 1; let q = 9; yield q; } return [...g()]; });
    run('gen-throw-' + c, () => { function* g() { let a = 1; try { yield a; } catch (e) { yield late; } let late = 2; yield late; } const it = g(); it.next(); return c ? it.throw(0).value : it.next().value; });
    run('destructure-' + c, () => { const { a = c ? b : 1, b = 2 } = {}; return a + b; });
    run('params-' + c, () => { function p(x = c ? y : 1, y = 2) { return x + y; } return p(); });
    run('class-decl-' + c, () => { if (c) new C(); class C { constructor() { this.z = 3; } } return new C().z; });
    run('closure-inner-' + c, () => { function inner() { return t; } const r = c ? inner() : 0; let t = 1; return r + inner(); });
    run('eval-' + c, () => { const r = c ? eval('ev') : 0; let ev = 4; return r + eval('ev'); });
    run('many-' + c, () => new Function('c', Array.from({ length: 70 }, (_, i) => 'let v' + i + ' = ' + i + ';').join('') + 'if (c) v69 = late; let late = 1; return v0 + v69 + late;')(c));
    run('many-read-' + c, () => new Function('c', 'let s = 0; if (c) s = w69;' + Array.from({ length: 70 }, (_, i) => 'let w' + i + ' = ' + i + ';').join('') + 'return s + w0 + w69;')(c));
    run('const-assign-' + c, () => { const k = 1; if (c) k = 2; return k; });
    run('for-of-closures-' + c, () => { const fs = []; for (const x of [1, 2, 3]) { if (c && x === 2) fs.push(() => y); const y = x * 10; fs.push(() => y); } return fs.map((h) => h()); });
    // the forms resolve_labels fuses once a check is proven passed: i++ (inc_loc), s += t (add_loc),
    // x = y; (put_loc), x = y then a read of x (set_loc); an unproven one keeps its check and throws
    run('inc-before-' + c, () => { if (c) i++; let i = 0; i++; ++i; i--; return i; });
    run('add-before-' + c, () => { if (c) t += 'a'; let t = 'x'; t += 'y'; t += 1; return t; });
    run('assign-before-' + c, () => { let b = 0; if (c) b = z; let z = 2; b = z; z = b + 1; return [b, z]; });
    run('set-before-' + c, () => { let r; if (c) r = (m = 1); let m = 5; m = 6; r = m; return [r, m]; });
    run('add-loc-forms-' + c, (k = c ? 2 : 3) => { const arr = [1, 2, 3]; let s = c ? 0 : ''; for (let i = 0; i < arr.length; i++) { const v = arr[i]; s += v; s += k; s += SHARED; } return s; });
    run('nested-blocks-' + c, () => { let s = 0; for (let i = 0; i < 3; i++) { { const a = i; { let b = a + 1; s += b; } } if (c && i === 1) s += d; const d = 1; s += d; } return s; });
  }
  // the fused forms on values other than int32s, and the order of their effects
  run('inc-values', () => { let i = 1.5, j = '7', k = 2 ** 31 - 1, l = -0, m = '3', n = null; i++; j++; k++; l--; m--; n++; return [i, j, k, l, m, n]; });
  run('post-values', () => { let i = 5; const r = i++; const q = i--; let s = 's'; const t = (s += 1); let u = 'u'; u = u + 2; return [r, q, i, s, t, u]; });
  run('inc-objects', () => { let o = { valueOf() { out.push('valueOf'); return 4; } }; o++; let p = { toString() { out.push('toString'); return 'p'; } }; p += 1; let q = { valueOf() { return 1; } }; q += q; return [o, p, q]; });
  run('inc-bigint', () => { let b = 10n; b++; b += 5n; b--; return String(b); });
  run('inc-symbol', () => { let y = Symbol('y'); y++; return 'no throw'; });
  run('add-symbol', () => { let y = 'a'; y += Symbol('y'); return 'no throw'; });
  run('const-inc', () => { const k = 1; k++; return k; });
  run('const-add', () => { const k = 'a'; k += 'b'; return k; });
  run('loop-closures', () => { const fs = []; for (let i = 0; i < 3; i++) { let v = i; v += 10; fs.push(() => v + i); } return fs.map((h) => h()); });
  run('swap-chain', () => { let a = 1, b = 2, c3 = 3, d = 4; for (let i = 0; i < 5; i++) { const t = d; d = c3; c3 = b; b = a; a = t; } return [a, b, c3, d]; });
  // the hot shape of a hash round: lets and consts read many times a turn, values as V8 computes them
  let A = 0x6a09e667, B = 0xbb67ae85 | 0, C = 0x3c6ef372, D = 0xa54ff53a | 0;
  for (let i = 0; i < 500; i++) {
    const s0 = ((A << 30) | (A >>> 2)) ^ ((A << 19) | (A >>> 13));
    const t = (D + s0 + (B & C) + i) | 0;
    D = C; C = B; B = A; A = t;
  }
  out.push(A, B, C, D);
  // async functions across awaits (the result arrives after this call: checked by g)
  globalThis.asyncOut = [];
  for (const c of [false, true]) {
    (async () => { await 0; if (c) return x; let x = 1; await null; return x; })()
      .then((v) => asyncOut.push('async-' + c + '=' + v), (e) => asyncOut.push('async-' + c + ':' + e.constructor.name));
  }
  Host.outputString(JSON.stringify(out));
};
globalThis.g = () => Host.outputString(JSON.stringify(asyncOut));`;

const tdz = suite('engine :: TDZ checks proven passed are dropped (patches/tdz.ts)');

tdz('should throw where V8 throws and give what V8 gives everywhere else', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f')) as unknown[];
  for (const name of ['read-before', 'write-before', 'typeof-before', 'self', 'branch-true', 'fallthrough-true', 'fallthrough-loop-true', 'loop-true', 'catch-true', 'gen-true', 'derived-false', 'many-true', 'many-read-true', 'eval-true', 'inc-before-true', 'add-before-true', 'assign-before-true', 'set-before-true'])
    assert.ok(v8.includes(`${name}:ReferenceError`), `V8 throws a ReferenceError in ${name}`);
  for (const [name, error] of [['inc-symbol', 'TypeError'], ['add-symbol', 'TypeError'], ['const-inc', 'TypeError'], ['const-add', 'TypeError']])
    assert.ok(v8.includes(`${name}:${error}`), `V8 throws a ${error} in ${name}`);
  assert.equal(JSON.parse(run('f')), v8);
});

tdz('should throw across an await where V8 throws', async () => {
  const { run } = await engineWith(SOURCE);
  run('f');
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(JSON.parse(run('g')), ['async-true:ReferenceError', 'async-false=1'], 'the throwing call settles first, as in V8');
});

tdz.run();
