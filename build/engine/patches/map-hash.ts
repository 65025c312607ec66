/**
 * Edits to Map and Set keys (issue 32): a string key's hash is computed once per string, not at
 * every look-up. Measured with callgrind on the native build (the Avro guest's work, the avro7
 * entry of docs/performance-log.md).
 */
import type { QuickjsPatch } from './types.ts';

export const MAP_HASH_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'h = hash_string(JS_VALUE_GET_STRING(key), 0);' },
    op: 'replace',
    text: String.raw`        {
            /* mep engine: a string that is not an atom keeps its hash in hash_next (an atom's
               chain, unused until then), marked by hash = 1; the value is hash_string's, so an
               atom (which computes it) and a rope (hash_string_rope) hash as before */
            JSString *p = JS_VALUE_GET_STRING(key);
            if (p->atom_type != 0) {
                h = hash_string(p, 0);
            } else if (p->hash == 1) {
                h = p->hash_next;
            } else {
                h = hash_string(p, 0);
                p->hash_next = h;
                p->hash = 1;
            }
        }`,
    why:
      'a Map or Set hashed a string key at every get, has, set and delete (hash_string over all its characters): the Avro ' +
      "guest's full names and sources, looked up again and again as the same strings, were 638,064 hashes, 154 M of its " +
      '3,852 M native instructions. A string is immutable once visible (the in-place concatenation below drops the mark)',
  },
  {
    file: 'quickjs.c',
    at: { line: '/* Concatenate in place in available space at the end of p1 */' },
    op: 'after',
    text: String.raw`        /* mep engine: its content changes, so its kept Map hash goes (map_hash_key) */
        if (p1->atom_type == 0)
            p1->hash = 0;`,
    why: 'the one place a visible string (its only reference) changes: a Map hash kept in it (map_hash_key) would be stale',
  },
];
