/**
 * Edits that give the interpreter's commonest generic operations a short path for the common
 * case, doing exactly what the generic path does there. Measured with callgrind on the native
 * build (bench/callgrind.bench.ts); each edit's commit names its figures.
 */
import type { QuickjsPatch } from './types.ts';

export const FAST_PATH_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'pc += 4;', near: 'CASE(OP_define_field):' },
    op: 'after',
    text: String.raw`                /* mep engine: a new field of an ordinary extensible object (an object literal's
                   member, a class field) is added to its shape at once, as JS_CreateProperty
                   would after JS_DefineProperty found no such property */
                {
                    JSObject *mep_p = JS_VALUE_GET_OBJ(sp[-2]);
                    JSProperty *mep_pr;
                    if (likely(JS_VALUE_GET_TAG(sp[-2]) == JS_TAG_OBJECT && !mep_p->is_exotic &&
                               !mep_p->fast_array && mep_p->extensible &&
                               !find_own_property(&mep_pr, mep_p, atom))) {
                        mep_pr = add_property(ctx, mep_p, atom, JS_PROP_C_W_E);
                        if (unlikely(!mep_pr)) {
                            JS_FreeValue(ctx, sp[-1]);
                            sp--;
                            goto exception;
                        }
                        mep_pr->u.value = sp[-1];
                        sp--;
                        BREAK;
                    }
                }`,
    why:
      'define an object literal\'s member without the generic definition: OP_define_field called JS_DefinePropertyValue, ' +
      'which looked the property up, went through the array, typed array and exotic cases and JS_CreateProperty before ' +
      'adding it to the shape (400 instructions a member; morphir-elm builds every record so)',
  },
  {
    file: 'quickjs.c',
    at: { line: '/* ES6 feature non compatible with ES5.1: length is configurable */', near: 'static void js_function_set_properties(JSContext *ctx, JSValue func_obj,' },
    op: 'before',
    text: String.raw`    /* mep engine: a new function has no property yet: length and name are added to its shape at
       once, as JS_CreateProperty would after JS_DefineProperty found them missing */
    JSObject *mep_p = JS_VALUE_GET_OBJ(func_obj);
    if (likely(!mep_p->is_exotic && !mep_p->fast_array && mep_p->extensible && mep_p->shape->prop_count == 0)) {
        JSProperty *mep_pr = add_property(ctx, mep_p, JS_ATOM_length, JS_PROP_CONFIGURABLE);
        JSValue mep_name;
        if (!mep_pr)
            return;
        mep_pr->u.value = js_int32(len);
        mep_name = JS_AtomToString(ctx, name);
        mep_pr = add_property(ctx, mep_p, JS_ATOM_name, JS_PROP_CONFIGURABLE);
        if (!mep_pr) {
            JS_FreeValue(ctx, mep_name);
            return;
        }
        mep_pr->u.value = mep_name;
        return;
    }`,
    why:
      'give a new function its length and name without the generic definition: each closure made (152,000 in compiling ' +
      'a small Elm project) defined both through JS_DefinePropertyValue, as slow as any property definition',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'static no_inline int js_strict_eq_slow(JSContext *ctx, JSValue *sp,', sha256: '57790cb486aa18bc' },
    op: 'replace',
    text: String.raw`static no_inline int js_strict_eq_slow(JSContext *ctx, JSValue *sp,
                                       bool is_neq)
{
    bool res;
    int tag1 = JS_VALUE_GET_NORM_TAG(sp[-2]);
    int tag2 = JS_VALUE_GET_NORM_TAG(sp[-1]);

    /* mep engine: the commonest cases of js_strict_eq2 first, and the operands dropped inline:
       two objects are the same object or not; against undefined or null, only the same tag is
       equal; two flat strings compare their characters */
    if (tag1 == JS_TAG_OBJECT && tag2 == JS_TAG_OBJECT)
        res = JS_VALUE_GET_OBJ(sp[-2]) == JS_VALUE_GET_OBJ(sp[-1]);
    else if (tag1 == JS_TAG_UNDEFINED || tag1 == JS_TAG_NULL ||
             tag2 == JS_TAG_UNDEFINED || tag2 == JS_TAG_NULL)
        res = tag1 == tag2;
    else if (tag1 == JS_TAG_STRING && tag2 == JS_TAG_STRING)
        res = js_string_eq(JS_VALUE_GET_STRING(sp[-2]), JS_VALUE_GET_STRING(sp[-1]));
    else
        res = js_strict_eq(ctx, sp[-2], sp[-1]);
    JS_FreeValueRT(ctx->rt, sp[-2]);
    JS_FreeValueRT(ctx->rt, sp[-1]);
    sp[-2] = js_bool(res ^ is_neq);
    return 0;
}`,
    why:
      'compare with === the commonest operands at once: objects by identity, anything against undefined or null by its ' +
      'tag, two flat strings by their characters, each as js_strict_eq2 does; the rest goes to it. The interpreter sends ' +
      'every === whose operands are not two integers here (2.7 % of the GraphQL workload in js_strict_eq_slow and js_strict_eq2)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'c = src[pos++];', near: 'str_new = js_alloc_string(ctx, len * 3, 0);' },
    op: 'before',
    text: String.raw`            /* mep engine: a two-byte string's ASCII four characters at a time */
            for (; pos + 4 <= len; pos += 4, q += 4) {
                uint64_t w;
                memcpy(&w, src + pos, 8);
                if (w & 0xff80ff80ff80ff80ULL)
                    break;
                q[0] = w;
                q[1] = w >> 16;
                q[2] = w >> 32;
                q[3] = w >> 48;
            }
            if (pos >= len)
                break;`,
    why:
      'write a two-byte string\'s runs of ASCII as UTF-8 four characters at a time (JS_ToCStringLen: Host.outputString of ' +
      'every answer, which is a two-byte string as soon as one name in an IR is not Latin-1); one character at a time it ' +
      'was 9 instructions each',
  },
  {
    file: 'quickjs.c',
    at: { line: 'for (i = 0; i < len; i++) {', near: 'static int string_buffer_write16(StringBuffer *s, const uint16_t *p, int len)' },
    op: 'before',
    text: '    if (!s->is_wide_char) /* mep engine: only a one-byte buffer needs the widest character */',
    why:
      'append two-byte characters to a two-byte buffer without reading each first for the widest of them, which only ' +
      'decides whether a one-byte buffer must widen (flattening the rope of a 1.3 M-character answer for Host.outputString: ' +
      '5 M instructions of 10 M)',
  },
];
