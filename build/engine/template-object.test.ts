/**
 * A tagged template's strings array read back from bytecode (build/engine/patches/template-object.ts)
 * against V8: every guest runs from bytecode, and stock quickjs-ng 0.17 gave the array and its
 * `raw` array a writable, configurable `length` there (frozen only when parsed in place), so
 * `Object.isFrozen(strings)` was false and a tag could change `strings.length` (test262
 * language/expressions/tagged-template/template-object.js failed only in the sandbox).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const tag = (strings) => strings;
  const same = () => tag${'`'}a${'$'}{1}b${'`'};
  const t = same();
  const shape = (o) => {
    const d = Object.getOwnPropertyDescriptor(o, 'length');
    return [Array.isArray(o), Object.isFrozen(o), Object.isExtensible(o), o.length, d.writable, d.configurable, d.enumerable, Object.getOwnPropertyNames(o).join()];
  };
  const tries = [];
  for (const o of [t, t.raw]) {
    try { 'use strict'; o.length = 0; tries.push('assigned ' + o.length); } catch (e) { tries.push(e.constructor.name); }
    tries.push(Reflect.set(o, 'length', 5), Reflect.defineProperty(o, 'length', { value: 1 }), Reflect.deleteProperty(o, 'length'), o.length);
    tries.push(Reflect.set(o, 0, 'x'), o[0], Reflect.defineProperty(o, 9, { value: 1 }));
  }
  const plain = Object.freeze(['p', 'q']);
  const kept = [];
  for (const o of [plain]) kept.push(Object.isFrozen(o), Object.getOwnPropertyDescriptor(o, 'length').writable);
  Host.outputString(JSON.stringify({ strings: shape(t), raw: shape(t.raw), rawOfRaw: t.raw.raw === undefined, same: same() === t, tries, kept, open: shape(['x']) }));
};`;

const template = suite('engine :: template objects from bytecode (patches/template-object.ts)');

template('should read back a tagged template\'s strings and raw arrays frozen, as V8 has them', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f'));
  assert.equal(v8.strings.slice(0, 6), [true, true, false, 2, false, false], 'V8: a frozen array whose length is neither writable nor configurable');
  assert.equal(JSON.parse(run('f')), v8);
});

template.run();
