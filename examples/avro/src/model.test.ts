import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compareStrings, sortByKey } from './model.ts';

const sorting = suite('model :: sortByKey');

/** A seeded list of `n` items whose keys come from `alphabet` (so short alphabets repeat keys). */
function items(n: number, seed: number, alphabet: string): { name: string; at: number }[] {
  let state = seed;
  const next = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: n }, (_, at) => {
    let name = '';
    for (let k = 0, len = 1 + (next() % 4); k < len; k++) name += alphabet[next() % alphabet.length];
    return { name, at };
  });
}

sorting('should sort short and long lists, with and without equal keys, as the stable comparator sort does', () => {
  for (const n of [0, 1, 2, 31, 32, 33, 100, 500]) {
    for (const alphabet of ['ab', 'abcdefghijklmnopqrstuvwxyz-ABZ09', 'é€𝄞a']) {
      for (let seed = 1; seed <= 3; seed++) {
        const list = items(n, seed, alphabet);
        const expected = list.slice().sort((a, b) => compareStrings(a.name, b.name));
        assert.equal(sortByKey(list, 'name'), expected, `${n} items from ${alphabet}, seed ${seed}`);
      }
    }
  }
});

sorting('should sort a long list of distinct keys in code-unit order, in place', () => {
  const list = Array.from({ length: 100 }, (_, i) => ({ source: `m#entity-${i}` }));
  const sorted = sortByKey(list, 'source');
  assert.is(sorted, list);
  assert.equal(sorted.slice(0, 4).map((x) => x.source), ['m#entity-0', 'm#entity-1', 'm#entity-10', 'm#entity-11']);
  for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i - 1].source < sorted[i].source);
});

sorting.run();
