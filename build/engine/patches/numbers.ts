/**
 * Edits to quickjs-ng's bitwise operators on numbers that are not small integers. The interpreter
 * handles `&`, `|`, `^`, `<<`, `>>`, `>>>` on two int32 values inline and sends anything else to
 * a slow function that converts each operand with ToNumeric (a call chain through
 * JS_ToNumberHintFree) and then ToInt32. A uint32 above 2^31 is a double in QuickJS, so hash and
 * checksum code (@noble/hashes' sha256, CRCs) takes that path at almost every operation. Two numbers
 * need no ToNumeric (it is the identity on them, with no side effect): they go straight to
 * ToInt32/ToUint32, which handle doubles inline.
 */
import type { QuickjsPatch } from './types.ts';

/** True for an int or a double, by the normalized tag (the tests of the two edits). */
const NUMBER = (v: string): string => `(JS_VALUE_GET_NORM_TAG(${v}) == JS_TAG_INT || JS_VALUE_GET_NORM_TAG(${v}) == JS_TAG_FLOAT64)`;

export const NUMBER_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'static no_inline __exception int js_binary_logic_slow(JSContext *ctx,' },
    op: 'before',
    text: String.raw`/* mep engine: ToInt32 of a number inline: an int as itself, a double of magnitude below 9.2e18
   truncated to int64 (exact there) and taken modulo 2^32; false for any other value (NaN, the
   infinities, huge doubles: JS_ToInt32 then; non-numbers: not asked) */
static inline __attribute__((always_inline)) bool mep_number_int32(JSValueConst v, uint32_t *r)
{
    double d;
    if (likely(JS_VALUE_GET_TAG(v) == JS_TAG_INT)) {
        *r = JS_VALUE_GET_INT(v);
        return true;
    }
    if (!JS_TAG_IS_FLOAT64(JS_VALUE_GET_TAG(v)))
        return false;
    d = JS_VALUE_GET_FLOAT64(v);
    if (!(d > -9.2e18 && d < 9.2e18))
        return false;
    *r = (uint32_t)(uint64_t)(int64_t)d;
    return true;
}`,
    why:
      'a bitwise operator on a double (a uint32 past 2^31, a sum before its `| 0`) converts it inline instead of calling ' +
      'JS_ToInt32Free for each operand: the lint\'s sha256 called js_binary_logic_slow 177,000 times at about 105 ' +
      'instructions each. Done in the slow functions, not in the loop: the same test in the loop\'s cases saved the lint ' +
      '7 M instructions more but cost GraphQL 2 M (the int paths\' code changed)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'tag2 = JS_VALUE_GET_NORM_TAG(op2);', near: 'static no_inline __exception int js_binary_logic_slow(JSContext *ctx,' },
    op: 'after',
    text: String.raw`    /* mep engine: two numbers go straight to ToInt32 (ToNumeric is the identity on them) */
    if (${NUMBER('op1')} && ${NUMBER('op2')}) {
        int32_t a, b;
        if (!mep_number_int32(op1, &v1)) { /* NaN, an infinity, a huge double: cannot fail on a number */
            JS_ToInt32Free(ctx, &a, op1);
            v1 = a;
        }
        if (!mep_number_int32(op2, &v2)) {
            JS_ToInt32Free(ctx, &b, op2);
            v2 = b;
        }
        switch(op) {
        case OP_shl: r = v1 << (v2 & 0x1f); break;
        case OP_sar: r = (int)v1 >> (v2 & 0x1f); break;
        case OP_and: r = v1 & v2; break;
        case OP_or: r = v1 | v2; break;
        case OP_xor: r = v1 ^ v2; break;
        default: abort();
        }
        sp[-2] = js_int32(r);
        return 0;
    }`,
    why:
      '&, |, ^, <<, >> on a double (a uint32 above 2^31, say) without the generic ToNumeric call chain: the IR lint\'s ' +
      'sha256 spent 6 % of its instructions in that chain',
  },
  {
    file: 'quickjs.c',
    at: { line: 'op2 = sp[-1];', near: 'static no_inline int js_shr_slow(JSContext *ctx, JSValue *sp)' },
    op: 'after',
    text: String.raw`    /* mep engine: two numbers go straight to ToUint32 (ToNumeric is the identity on them) */
    if (${NUMBER('op1')} && ${NUMBER('op2')}) {
        if (!mep_number_int32(op1, &v1)) /* NaN, an infinity, a huge double: cannot fail on a number */
            JS_ToUint32Free(ctx, &v1, op1);
        if (!mep_number_int32(op2, &v2))
            JS_ToUint32Free(ctx, &v2, op2);
        r = v1 >> (v2 & 0x1f);
        sp[-2] = r <= INT32_MAX ? js_int32(r) : js_float64(r);
        return 0;
    }`,
    why: '>>> on a double without the generic ToNumeric call chain (the `x >>> 0` of every uint32 in hash code)',
  },
];
