/**
 * Integer typed arrays' elements read and written by the interpreter's `a[i]` bytecodes without a
 * call (issue 32). The IR lint's SHA-256 (@noble/hashes) and GraphQL's fflate index Uint8Array,
 * Uint16Array, Int32Array and Uint32Array in their inner loops; quickjs-ng's loop inlined only
 * plain arrays, so each such read called `js_get_fast_array_element` and each write the generic
 * `JS_SetPropertyValue` (about 85 instructions a write: a switch on the class, `JS_ToInt32Free`,
 * the immutable-buffer test as a call). Measured with callgrind on the native build
 * (bench/callgrind.bench.ts); the commit names the figures.
 *
 * What they decline goes the way it went: another class, an index at or past the element count
 * (0 once the buffer is detached or out of bounds), a value that is not an int32 (doubles,
 * strings, objects with valueOf run their conversion in the generic path), an immutable buffer.
 */
import type { QuickjsPatch } from './types.ts';

const HELPERS = String.raw`/* mep engine: the integer typed arrays whose elements the interpreter reads and writes inline */
static inline __attribute__((always_inline)) bool mep_int_ta(JSObject *p, uint32_t idx)
{
    int c = p->class_id;
    return (c == JS_CLASS_UINT8_ARRAY || c == JS_CLASS_UINT16_ARRAY ||
            c == JS_CLASS_INT32_ARRAY || c == JS_CLASS_UINT32_ARRAY) && idx < p->u.array.count;
}

/* mep engine: an element by an index mep_int_ta accepted */
static inline __attribute__((always_inline)) bool mep_int_ta_get(JSObject *p, uint32_t idx, JSValue *pval)
{
    uint32_t u;
    if (!mep_int_ta(p, idx))
        return false;
    if (p->class_id == JS_CLASS_UINT8_ARRAY) {
        *pval = js_int32(p->u.array.u.uint8_ptr[idx]);
    } else if (p->class_id == JS_CLASS_UINT16_ARRAY) {
        *pval = js_int32(p->u.array.u.uint16_ptr[idx]);
    } else if (p->class_id == JS_CLASS_INT32_ARRAY) {
        *pval = js_int32(p->u.array.u.int32_ptr[idx]);
    } else { /* js_uint32 is a call at -Os */
        u = p->u.array.u.uint32_ptr[idx];
        *pval = u <= INT32_MAX ? js_int32(u) : js_float64(u);
    }
    return true;
}

/* mep engine: stores the int32 v (ToUint8/ToUint16/ToInt32/ToUint32 of an int32 are its low bits) */
static inline __attribute__((always_inline)) bool mep_int_ta_put(JSObject *p, uint32_t idx, int32_t v)
{
    if (!mep_int_ta(p, idx) || unlikely(p->u.typed_array->buffer->u.array_buffer->immutable))
        return false;
    if (p->class_id == JS_CLASS_UINT8_ARRAY)
        p->u.array.u.uint8_ptr[idx] = v;
    else if (p->class_id == JS_CLASS_UINT16_ARRAY)
        p->u.array.u.uint16_ptr[idx] = v;
    else
        p->u.array.u.uint32_ptr[idx] = v;
    return true;
}
`;

/** The read of `a[i]` (`get_array_el`, or `get_array_el2` that keeps `a`): the typed array before the generic helper. */
function get(opcode: 'OP_get_array_el' | 'OP_get_array_el2'): QuickjsPatch {
  const keep = opcode === 'OP_get_array_el2';
  return {
    file: 'quickjs.c',
    at: { line: 'if (js_get_fast_array_element(ctx, p, idx, &val)) {', near: `CASE(${opcode}):` },
    op: 'before',
    text: keep
      ? `                    if (mep_int_ta_get(p, idx, &val)) { /* mep engine: integer typed array */
                        sp[-1] = val;
                        BREAK;
                    }`
      : `                    if (mep_int_ta_get(p, idx, &val)) { /* mep engine: integer typed array */
                        JS_FreeValue(ctx, sp[-2]);
                        sp[-2] = val;
                        sp--;
                        BREAK;
                    }`,
    why: `read an element of a Uint8Array, Uint16Array, Int32Array or Uint32Array in ${opcode} without the call to js_get_fast_array_element`,
  };
}

export const TYPED_ARRAY_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'static bool js_get_fast_array_element(JSContext *ctx, JSObject *p,' },
    op: 'before',
    text: HELPERS,
    why: 'the inline element read and int32 write of the integer typed arrays the interpreter uses (below)',
  },
  get('OP_get_array_el'),
  get('OP_get_array_el2'),
  {
    file: 'quickjs.c',
    at: { line: 'ret = JS_SetPropertyValue(ctx, sp[-3], sp[-2], sp[-1], JS_PROP_THROW_STRICT);', near: 'CASE(OP_put_array_el):' },
    op: 'before',
    text: String.raw`                if (JS_VALUE_GET_TAG(sp[-3]) == JS_TAG_OBJECT && /* mep engine: an int32 into an integer typed array */
                    JS_VALUE_GET_TAG(sp[-2]) == JS_TAG_INT && JS_VALUE_GET_TAG(sp[-1]) == JS_TAG_INT &&
                    mep_int_ta_put(JS_VALUE_GET_OBJ(sp[-3]), JS_VALUE_GET_INT(sp[-2]), JS_VALUE_GET_INT(sp[-1]))) {
                    JS_FreeValue(ctx, sp[-3]);
                    sp -= 3;
                    BREAK;
                }`,
    why:
      'write an int32 into a Uint8Array, Uint16Array, Int32Array or Uint32Array in OP_put_array_el without JS_SetPropertyValue ' +
      '(its class switch, JS_ToInt32Free and the immutable test as a call): SHA-256 and fflate write their words and bytes so',
  },
];
