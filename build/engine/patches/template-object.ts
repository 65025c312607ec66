/**
 * A tagged template's strings array read back from bytecode is frozen, as when it was parsed
 * (issue 33). quickjs-ng 0.17.0 freezes a template object at parse time (seal_template_obj:
 * elements read-only, `length` read-only and not configurable, not extensible), writes it to
 * bytecode as a template object, and on reading it back only prevents extensions: the strings
 * array and its `raw` array came back with a writable, configurable `length`, so in a guest
 * (always run from bytecode) `Object.isFrozen(strings)` was false and a tag could set
 * `strings.length` (test262 language/expressions/tagged-template/template-object.js failed only
 * in the sandbox). The reader now seals it the way the parser does.
 */
import type { QuickjsPatch } from './types.ts';

export const TEMPLATE_OBJECT_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'JS_PreventExtensions(ctx, obj);', near: 'static JSValue JS_ReadArray(BCReaderState *s, int tag)' },
    op: 'replace',
    text: String.raw`        /* mep engine: frozen as the parser froze it (length read-only, not configurable) */
        if (seal_template_obj(ctx, obj))
            goto fail;`,
    why: 'a template object read from bytecode keeps the frozen length the parser gave it (test262 tagged-template/template-object.js; Object.isFrozen(strings) as in V8)',
  },
];
