/**
 * A Map or Set keeps a string key's hash in the string after its first look-up
 * (build/engine/patches/map-hash.ts): every look-up must still find what V8 finds, for strings
 * made in every way (literals and atoms, concatenations, ropes, slices, wide strings, JSON), a
 * string grown in place after it was looked up, and a string that became an atom (a property
 * key) after it was hashed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const out = [];
  const m = new Map(), set = new Set();
  const long = 'x'.repeat(300);
  const made = [
    'abc', ['a', 'bc'].join(''), 'ab' + String.fromCharCode(99), long + 'tail', long.slice(5) + 'é', long.substring(10, 200),
    'wide€', 'wide' + String.fromCharCode(0x20ac), JSON.parse('["abc", "wide\\u20ac"]')[0], JSON.parse('"' + long + 'tail"'), '', '0', String(0),
  ];
  for (const k of made) { m.set(k, (m.get(k) ?? 0) + 1); set.add(k); }
  for (const k of made) out.push(m.get(k), set.has(k), m.has(k + ''), set.has(k.slice(0)));
  // A string looked up (its hash kept), then grown in place: returned from where it was made, its
  // one reference is the operand of + (QuickJS appends to it in place when its block has room).
  const grow = (k) => { const t = 'gr' + k; set.has(t); m.has(t); return t; };
  for (let i = 0; i < 60; i++) {
    const k = String.fromCharCode(97 + (i % 26)).repeat(1 + (i % 7));
    const u = grow(k) + 'z';
    set.add(['gr', k, 'z'].join(''));
    out.push(set.has(u), m.has(u), set.has(grow(k)));
  }
  // A hashed string that then becomes an atom (a property key), looked up both ways.
  const keyed = 'key' + String.fromCharCode(49);
  m.set(keyed, 'v');
  const o = {}; o[keyed] = 1;
  out.push(m.get(keyed), m.get('key1'), Object.keys(o)[0] === keyed, m.get(Object.keys(o)[0]));
  for (const k of made) { m.delete(k); set.delete(k); }
  out.push(m.size, set.size, [...m.keys()].length);
  Host.outputString(JSON.stringify(out));
};`;

const keys = suite('engine :: string keys of Map and Set (patches/map-hash.ts)');

keys('should find string keys made in every way, grown in place or made atoms after their first look-up, as V8 does', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f')) as unknown[];
  assert.is(v8.length, 13 * 4 + 60 * 3 + 4 + 3);
  assert.equal(JSON.parse(run('f')), v8);
});

keys.run();
