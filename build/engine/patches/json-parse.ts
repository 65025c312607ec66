/**
 * Edits to JSON.parse: members and elements of the objects and arrays it builds are added directly,
 * and a string value takes its token's string. build/engine/json.test.ts and heap.test.ts check
 * the results against V8's (repeated keys, `__proto__`, index keys, nesting, revivers).
 */
import type { QuickjsPatch } from './types.ts';

export const JSON_PARSE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { from: 'ret = JS_DefinePropertyValue(ctx, val, prop_name,', to: 'prop_val, JS_PROP_C_W_E);', near: 'prop_val = json_parse_value(s, pr1);', sha256: '25544d56456a6ec4' },
    op: 'replace',
    text: String.raw`                    {
                        /* mep engine: a new key of the fresh plain object is added directly */
                        JSProperty *mep_pr;
                        JSObject *mep_p = JS_VALUE_GET_OBJ(val);
                        if (find_own_property(&mep_pr, mep_p, prop_name)) {
                            ret = JS_DefinePropertyValue(ctx, val, prop_name, prop_val, JS_PROP_C_W_E);
                        } else if ((mep_pr = add_property(ctx, mep_p, prop_name, JS_PROP_C_W_E)) != NULL) {
                            mep_pr->u.value = prop_val;
                            ret = 0;
                        } else {
                            JS_FreeValue(ctx, prop_val);
                            ret = -1;
                        }
                    }`,
    why:
      'let JSON.parse add a member to the object it is building without the generic definition path (exotic objects, ' +
      'setters, non-extensible checks, which a fresh plain object never has); a repeated key still goes the generic way',
  },
  {
    file: 'quickjs.c',
    at: { line: 'ret = JS_DefinePropertyValueUint32(ctx, val, idx, el, JS_PROP_C_W_E);', near: 'el = json_parse_value(s, pr1);' },
    op: 'replace',
    text: String.raw`                    {
                        /* mep engine: the next element of the fresh array is appended directly */
                        JSObject *mep_p = JS_VALUE_GET_OBJ(val);
                        if (mep_p->fast_array && idx == mep_p->u.array.count)
                            ret = add_fast_array_element(ctx, mep_p, el, JS_PROP_THROW) < 0 ? -1 : 0;
                        else
                            ret = JS_DefinePropertyValueUint32(ctx, val, idx, el, JS_PROP_C_W_E);
                    }`,
    why:
      'let JSON.parse append an element to the array it is building directly: each went through an atom for its index and ' +
      'the generic definition path',
  },
  {
    file: 'quickjs.c',
    at: { line: 'val = js_dup(s->token.u.str.str);' },
    op: 'replace',
    text: String.raw`        /* mep engine: the value takes the token's string (the token no longer holds it) */
        val = s->token.u.str.str;
        s->token.val = TOK_EOF;`,
    why: 'let a string value take its token\'s string instead of a reference that the next token then dropped again',
  },
];
