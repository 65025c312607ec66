/**
 * Edits to JSON.stringify. Without a replacer function or a property list (every call the runtime
 * and the backends make, indented or not), it writes straight into its buffer instead of building
 * a key array, a quoted copy of every key and string, an indentation string and a JS array for the
 * cycle check per object.
 * The C is ours; the texts it replaces are QuickJS's, so a QuickJS upgrade that changes them fails
 * the build. build/engine/json.test.ts checks the output against V8's, hostile cases included.
 */
import { QUOTED_STRING, QUOTED_STRING_ORIGINAL } from './json-quote-c.ts';
import { DIRECT_WRITER } from './json-writer-c.ts';
import type { QuickjsPatch } from './types.ts';

const STRINGIFY_HEAD = 'JSValue JS_JSONStringify(JSContext *ctx, JSValueConst obj,\n                         JSValueConst replacer, JSValueConst space0)';
const STRINGIFY_CALL = '    if (js_json_to_str(ctx, jsc, wrapper, val, jsc->empty))\n        goto exception;\n';

export const JSON_STRINGIFY_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    find: '                /* XXX: could do this string conversion only when needed */\n                prop = JS_ToStringFree(ctx, JS_NewInt64(ctx, i));',
    replace:
      '                /* mep engine: the key is only passed to toJSON (objects, BigInt) or the replacer */\n' +
      '                prop = JS_IsObject(v) || JS_IsBigInt(ctx, v) || !JS_IsUndefined(jsc->replacer_func)\n' +
      '                    ? JS_ToStringFree(ctx, JS_NewInt64(ctx, i)) : JS_UNDEFINED;',
    why: 'make JSON.stringify name an array element only when toJSON or a replacer can see the name, as the XXX note there suggests',
  },
  {
    file: 'quickjs.c',
    find: QUOTED_STRING_ORIGINAL,
    replace: QUOTED_STRING,
    why:
      'quote a string into the output it is written to, copying a one-byte string in runs between the characters that ' +
      'need an escape: JS_ToQuotedString made a quoted copy of every key and string (character by character), which ' +
      'JSON.stringify then copied into its output',
  },
  {
    file: 'quickjs.c',
    find: STRINGIFY_HEAD,
    // The head on one line: the edit's test checks that the text it found is gone.
    replace: DIRECT_WRITER + 'JSValue JS_JSONStringify(JSContext *ctx, JSValueConst obj, JSValueConst replacer, JSValueConst space0)',
    why:
      'write plain objects and arrays directly: js_json_to_str listed each object\'s keys as a JS array of strings, turned ' +
      'each back into an atom to read its value, quoted a copy of it, and kept the cycle check in a JS array with generic ' +
      'push, pop and includes (measured natively: JSON.stringify of a 10 MB IR 0.5-0.9 s -> 0.15 s)',
  },
  {
    file: 'quickjs.c',
    find: STRINGIFY_CALL,
    replace:
      '    /* mep engine: without a replacer function or a property list, the direct writer */\n' +
      '    if (JS_IsUndefined(jsc->replacer_func) && JS_IsUndefined(jsc->property_list)\n' +
      '        ? mep_json_write(ctx, jsc, wrapper, val, NULL)\n' +
      '        : js_json_to_str(ctx, jsc, wrapper, val, jsc->empty))\n' +
      '        goto exception;\n',
    why: 'use the direct writer when nothing can observe the generic path\'s order of work (no replacer or list)',
  },
  {
    file: 'quickjs.c',
    find: '    JSValue empty;\n    StringBuffer *b;\n} JSONStringifyContext;',
    replace:
      '    JSValue empty;\n    StringBuffer *b;\n' +
      '    int mep_depth; /* mep engine: how deep the direct writer was when it handed over to js_json_to_str */\n' +
      '} JSONStringifyContext;',
    why: 'where the generic writer learns how deep the direct writer already was (see the depth check below)',
  },
  {
    file: 'quickjs.c',
    find: '    jsc->b = &b_s;\n    jsc->empty = JS_AtomToString(ctx, JS_ATOM_empty_string);\n',
    replace: '    jsc->b = &b_s;\n    jsc->mep_depth = 0;\n    jsc->empty = JS_AtomToString(ctx, JS_ATOM_empty_string);\n',
    why: 'start the count of the depth check below at zero',
  },
  {
    file: 'quickjs.c',
    find:
      '        v = js_array_push(ctx, jsc->stack, 1, (JSValueConst *)&val, 0);\n        if (check_exception_free(ctx, v))\n            goto exception;\n' +
      '        ret = JS_IsArray(ctx, val);\n',
    replace:
      '        v = js_array_push(ctx, jsc->stack, 1, (JSValueConst *)&val, 0);\n        if (check_exception_free(ctx, v))\n            goto exception;\n' +
      '        /* mep engine: the direct writer\'s depth limit, counted from where it handed over */\n' +
      '        if (jsc->mep_depth + JS_VALUE_GET_OBJ(jsc->stack)->u.array.count > MEP_JSON_MAX_DEPTH) {\n' +
      '            JS_ThrowInternalError(ctx, "stack overflow");\n' +
      '            goto exception;\n' +
      '        }\n' +
      '        ret = JS_IsArray(ctx, val);\n',
    why:
      'hold the generic writer (a replacer function or a property list, an exotic object) to the same depth as the direct ' +
      'one: it had no limit at all, and deep data exhausted the host\'s stack and trapped the call',
  },
];
