/**
 * The "use strip" directive of Bellard's QuickJS, which quickjs-ng dropped: a function whose body
 * starts with it, and every function nested in it, keeps no copy of its source text (its
 * `toString()` answers as a native function's would). Code that does not say it is unchanged.
 */
import type { QuickjsPatch } from './types.ts';

const WHY =
  'the Elm frontend compiles morphir-elm\'s 2 MB worker with new Function under "use strip" (QuickJS 2021 ' +
  'honoured it); quickjs-ng kept the text of every function, so the anonymous function, the worker\'s IIFE and ' +
  'each nested function held their own copies: 5.7 MB of the 13.8 MB snapshot, compiled, copied and hashed ' +
  'on every session start (build/engine/strip-source.test.ts)';

export const STRIP_SOURCE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'bool has_use_strict : 1; /* to reject directive in special cases */' },
    op: 'after',
    text: '    bool mep_strip_source : 1; /* mep engine: "use strip" here or in an enclosing function */',
    why: WHY,
  },
  {
    file: 'quickjs.c',
    at: { line: 'if (!strcmp(str, "use strict")) {' },
    op: 'before',
    text: '        if (!strcmp(str, "use strip")) /* mep engine: keep no source text (patches/strip-source.ts) */\n            s->cur_func->mep_strip_source = true;',
    why: WHY,
  },
  {
    file: 'quickjs.c',
    at: { line: 'fd->is_strict_mode = parent->is_strict_mode;' },
    op: 'after',
    text: '        fd->mep_strip_source = parent->mep_strip_source;',
    why: WHY,
  },
  {
    file: 'quickjs.c',
    at: { line: 'b->source = fd->source;' },
    op: 'before',
    text: '    if (fd->mep_strip_source) { /* mep engine: "use strip" (patches/strip-source.ts) */\n        js_free(ctx, fd->source);\n        fd->source = NULL;\n        fd->source_len = 0;\n    }',
    why: WHY,
  },
];
