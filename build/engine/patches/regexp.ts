/**
 * Edits to quickjs-ng's regular expression parser (libregexp.c) for the `v` flag (unicodeSets),
 * found by running v-flag patterns in the engine and in V8 (build/engine/regexp-v.test.ts):
 * - Outside a character class, the `v` flag changes nothing about which characters may appear,
 *   but QuickJS parses a plain character there with the class atom reader and applied the
 *   in-class rules to it: `/^(-?\d*):(-?\d*)$/v` failed ("invalid character in class": the `-`)
 *   and `/;;;|;;/v` failed ("invalid class set operation": a doubled `;`). jsonpath-plus uses both.
 * - A class holding strings (`[\q{ab}]`, `\p{RGI_Emoji}`) inside a lookbehind matched its strings
 *   forwards from where the lookbehind steps back one character, so `/(?<=[\q{ab}])c/v` never
 *   matched "abc". Backwards, a string is matched from its last character to its first.
 */
import type { QuickjsPatch } from './types.ts';

/** The parser state's flag telling re_emit_string_list that the term being emitted matches backwards. */
const BACKWARD = 'mep_backward';

export const REGEXP_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'libregexp.c',
    at: { line: 'if (s->unicode_sets && p[1] == c) {' },
    op: 'replace',
    text: '        if (s->unicode_sets && inclass && p[1] == c) { /* mep engine: only in a class */',
    why: 'a doubled punctuator (;; :: && ...) is reserved in a v-flag class only: /;;;|;;/v is valid (jsonpath-plus)',
  },
  {
    file: 'libregexp.c',
    at: { line: 'if (s->unicode_sets) {', near: '/* forbidden double characters */' },
    op: 'replace',
    text: '        if (s->unicode_sets && inclass) { /* mep engine: only in a class */',
    why: 'a class set syntax character (- ( ) { } / |) is refused in a v-flag class only: /^(-?\\d*):(-?\\d*)$/v is valid (jsonpath-plus)',
  },
  {
    file: 'libregexp.c',
    at: { line: 'bool unicode_sets; /* if set, is_unicode is also set */' },
    op: 'after',
    text: `    bool ${BACKWARD}; /* mep engine: the class being emitted is in a lookbehind */`,
    why: 'strings of a v-flag class in a lookbehind: the direction of the term reaches re_emit_string_list through the state',
  },
  {
    file: 'libregexp.c',
    at: { line: 'if (re_parse_char_class(s, &p))' },
    op: 'before',
    text: `        s->${BACKWARD} = is_backward_dir; /* mep engine */`,
    why: 'strings of a v-flag class in a lookbehind: a class term ([\\q{ab}]) says its direction',
  },
  {
    file: 'libregexp.c',
    at: { line: 'ret = re_emit_string_list(s, cr);' },
    op: 'before',
    text: `                s->${BACKWARD} = is_backward_dir; /* mep engine */`,
    why: 'strings of a v-flag class in a lookbehind: a property of strings outside a class (\\p{RGI_Emoji}) says its direction',
  },
  {
    file: 'libregexp.c',
    at: { line: 're_emit_char(s, p->buf[j]);' },
    op: 'replace',
    text: String.raw`                if (s->${BACKWARD}) { /* mep engine: last character first, stepping back between them */
                    if (j != 0) {
                        re_emit_op(s, REOP_prev);
                        re_emit_op(s, REOP_prev);
                    }
                    re_emit_char(s, p->buf[p->len - 1 - j]);
                } else {
                    re_emit_char(s, p->buf[j]);
                }`,
    why: 'a string of a v-flag class in a lookbehind is matched backwards: /(?<=[\\q{ab}])c/v matches "abc" as in V8',
  },
];
