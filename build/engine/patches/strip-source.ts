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

/** An edit of quickjs.c at the one line `line`, for {@link WHY}. */
const edit = (line: string, op: QuickjsPatch['op'], text: string): QuickjsPatch => ({ file: 'quickjs.c', at: { line }, op, text, why: WHY });

export const STRIP_SOURCE_PATCHES: readonly QuickjsPatch[] = [
  edit('bool has_use_strict : 1; /* to reject directive in special cases */', 'after', '    bool mep_strip_source : 1; /* mep engine: "use strip" here or in an enclosing function */'),
  edit(
    'if (!strcmp(str, "use strict")) {',
    'before',
    '        if (!strcmp(str, "use strip")) /* mep engine: keep no source text (patches/strip-source.ts) */\n            s->cur_func->mep_strip_source = true;',
  ),
  edit('fd->is_strict_mode = parent->is_strict_mode;', 'after', '        fd->mep_strip_source = parent->mep_strip_source;'),
  edit(
    'b->source = fd->source;',
    'before',
    '    if (fd->mep_strip_source) { /* mep engine: "use strip" (patches/strip-source.ts) */\n        js_free(ctx, fd->source);\n        fd->source = NULL;\n        fd->source_len = 0;\n    }',
  ),
];
