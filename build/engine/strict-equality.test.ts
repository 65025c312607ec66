/**
 * `===` and `!==` in the interpreter decide two objects, undefined or null and a string against
 * itself or another of a different length inline (build/engine/patches/compare.ts): every pair of value kinds must compare as V8
 * compares them, numbers of both representations, NaN, -0, equal strings made apart, symbols,
 * bigints and objects that are dropped by the comparison included.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const o = {}, s = 'shared', sym = Symbol('s');
  const made = ['sha', 'red'].join('');
  const values = [0, -0, 1, 1.0, 1.5, NaN, 2 ** 31, -1, '', '1', s, made, 'other', 'sharex', 'shαred', ['sh', 'αred'].join(''), 'shared!', true, false, undefined, null, o, {}, [], sym, Symbol('s'), 1n, 2n ** 70n, () => 1];
  const bits = [];
  for (const a of values) {
    let row = '';
    for (const b of values) row += (a === b ? 'e' : '.') + (a !== b ? 'n' : '.');
    bits.push(row);
  }
  // operands that are temporaries (dropped by the comparison) and comparisons in a loop
  let count = 0;
  for (let i = 0; i < 300; i++) {
    if ({ i } === { i }) count += 1000;
    if ([i].join() === String(i)) count++;
    if (values[i % values.length] === undefined) count += 10000;
    if (values[i % values.length] !== null) count += 100000;
  }
  Host.outputString(JSON.stringify({ bits, count }));
};`;

const eq = suite('engine :: === and !== (patches/compare.ts)');

eq('should compare every pair of value kinds with === and !== as V8 does', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f')) as { bits: string[]; count: number };
  assert.is(v8.bits[10]![22], 'e'); // s === made
  assert.is(v8.bits[14]![30], 'e'); // 'shαred' === made wide
  assert.is(v8.bits[5]![10], '.'); // NaN !== NaN
  assert.equal(JSON.parse(run('f')), v8);
});

eq.run();
