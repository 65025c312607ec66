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
    at: { line: 'tag2 = JS_VALUE_GET_NORM_TAG(op2);', near: 'static no_inline __exception int js_binary_logic_slow(JSContext *ctx,' },
    op: 'after',
    text: String.raw`    /* mep engine: two numbers go straight to ToInt32 (ToNumeric is the identity on them) */
    if (${NUMBER('op1')} && ${NUMBER('op2')}) {
        int32_t a, b;
        JS_ToInt32Free(ctx, &a, op1); /* cannot fail on a number */
        JS_ToInt32Free(ctx, &b, op2);
        v1 = a;
        v2 = b;
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
        JS_ToUint32Free(ctx, &v1, op1); /* cannot fail on a number */
        JS_ToUint32Free(ctx, &v2, op2);
        sp[-2] = js_uint32(v1 >> (v2 & 0x1f));
        return 0;
    }`,
    why: '>>> on a double without the generic ToNumeric call chain (the `x >>> 0` of every uint32 in hash code)',
  },
];
