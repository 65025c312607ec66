/** Edits to Map and Set: bucket counts, object-key hashes, string-key hashes remembered. */
import type { QuickjsPatch } from './types.ts';

export const MAP_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    find: '        return;\n    new_hash_size += slack / sizeof(*new_hash_table);\n',
    replace: '        return;\n    /* mep engine: the size stays a power of two (the bucket is `hash & (size - 1)`) */\n',
    why:
      "keep a Map's bucket count a power of two: QuickJS added the allocator's slack to it, which is harmless only when " +
      'the allocator reports no usable size (as wasi-libc builds did); with glue/alloc.c reporting exact sizes, the mask ' +
      'skipped most buckets and Map look-ups walked long chains (measured: Map look-ups 12x slower in the Avro job)',
  },
  {
    file: 'quickjs.c',
    find: '        h = (uintptr_t)JS_VALUE_GET_PTR(key) * 3163;',
    replace: '        h = ((uintptr_t)JS_VALUE_GET_PTR(key) >> 3) * 3163; /* mep engine: blocks are 8-byte aligned */',
    why:
      'hash an object or symbol key by the address bits that vary: every block is 8-byte aligned, so the low 3 bits of ' +
      '`address * 3163` were always 0 and a Map keyed by objects used one bucket in eight',
  },
  {
    file: 'quickjs.c',
    find: '    case JS_TAG_STRING:\n        h = hash_string(JS_VALUE_GET_STRING(key), 0);\n        break;',
    replace:
      '    case JS_TAG_STRING:\n' +
      '        {\n' +
      '            /* mep engine: computed once per string, kept in hash_next (used only by atoms; 0: not yet) */\n' +
      '            JSString *p = JS_VALUE_GET_STRING(key);\n' +
      '            if (p->atom_type == 0 && p->hash_next != 0) {\n' +
      '                h = p->hash_next;\n' +
      '            } else {\n' +
      '                h = hash_string(p, 0);\n' +
      '                if (p->atom_type == 0)\n' +
      '                    p->hash_next = h;\n' +
      '            }\n' +
      '        }\n' +
      '        break;',
    why:
      'remember a string\'s Map hash in the string: every Map.get/set/has of a string key hashed all its characters again ' +
      '(QuickJS strings are immutable, except the in-place append below, which forgets it)',
  },
  {
    file: 'quickjs.c',
    find: '        /* Concatenate in place in available space at the end of p1 */',
    replace:
      '        /* Concatenate in place in available space at the end of p1 (mep engine: forgetting the Map hash) */\n' +
      '        if (p1->atom_type == 0)\n' +
      '            p1->hash_next = 0;',
    why: 'a string appended to in place forgets the Map hash it remembered (see the edit of map_hash_key)',
  },
  {
    file: 'quickjs.c',
    find:
      '    h = map_hash_key(ctx, key) & (s->hash_size - 1);\n    list_for_each(el, &s->hash_table[h]) {\n' +
      '        mr = list_entry(el, JSMapRecord, hash_link);\n        if (js_same_value_zero(ctx, mr->key, key))',
    replace:
      '    h = map_hash_key(ctx, key) & (s->hash_size - 1);\n' +
      '    /* mep engine: the hash the key string remembers (map_hash_key just set it), 0 if none */\n' +
      '    uint32_t remembered = JS_VALUE_GET_TAG(key) == JS_TAG_STRING && JS_VALUE_GET_STRING(key)->atom_type == 0 ?\n' +
      '        JS_VALUE_GET_STRING(key)->hash_next : 0;\n' +
      '    list_for_each(el, &s->hash_table[h]) {\n' +
      '        mr = list_entry(el, JSMapRecord, hash_link);\n' +
      '        /* mep engine: a string key remembering another hash is another string */\n' +
      '        if (remembered != 0 && JS_VALUE_GET_TAG(mr->key) == JS_TAG_STRING) {\n' +
      '            JSString *q = JS_VALUE_GET_STRING(mr->key);\n' +
      '            if (q->atom_type == 0 && q->hash_next != 0 && q->hash_next != remembered)\n' +
      '                continue;\n' +
      '        }\n' +
      '        if (js_same_value_zero(ctx, mr->key, key))',
    why:
      'let a Map look-up skip, without comparing characters, the records of its bucket whose string key remembers another ' +
      'hash (a bucket holds up to two records on average)',
  },
];
