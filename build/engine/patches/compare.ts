/**
 * Edits to the interpreter's comparisons (issue 32). Measured with callgrind on the native build
 * (bench/callgrind.bench.ts); each edit's commit names its figures.
 */
import type { QuickjsPatch } from './types.ts';

/** `===` (is_neq 0) or `!==` (1) in the interpreter: the commonest operands at once, the rest to js_strict_eq_slow. */
function strictEquality(op: 'OP_strict_eq' | 'OP_strict_neq', cmp: '==' | '!=', isNeq: 0 | 1): QuickjsPatch {
  return {
    file: 'quickjs.c',
    at: { line: `OP_CMP(${op}, ${cmp}, js_strict_eq_slow(ctx, sp, ${isNeq}));` },
    op: 'replace',
    text: String.raw`        CASE(${op}): /* mep engine: two ints, two objects, undefined or null, the same string or two of different lengths at once */
            {
                JSValue op1 = sp[-2], op2 = sp[-1];
                int tag1 = JS_VALUE_GET_NORM_TAG(op1), tag2 = JS_VALUE_GET_NORM_TAG(op2);
                bool res;
                if (likely(JS_VALUE_IS_BOTH_INT(op1, op2))) {
                    res = JS_VALUE_GET_INT(op1) == JS_VALUE_GET_INT(op2);
                } else if ((tag1 == JS_TAG_OBJECT && tag2 == JS_TAG_OBJECT) ||
                           (tag1 == JS_TAG_STRING && tag2 == JS_TAG_STRING &&
                            (JS_VALUE_GET_PTR(op1) == JS_VALUE_GET_PTR(op2) ||
                             JS_VALUE_GET_STRING(op1)->len != JS_VALUE_GET_STRING(op2)->len))) {
                    res = JS_VALUE_GET_PTR(op1) == JS_VALUE_GET_PTR(op2);
                } else if (tag1 == JS_TAG_UNDEFINED || tag1 == JS_TAG_NULL ||
                           tag2 == JS_TAG_UNDEFINED || tag2 == JS_TAG_NULL) {
                    res = tag1 == tag2;
                } else {
                    sf->cur_pc = pc;
                    if (js_strict_eq_slow(ctx, sp, ${isNeq}))
                        goto exception;
                    sp--;
                    BREAK;
                }
                JS_FreeValue(ctx, op1);
                JS_FreeValue(ctx, op2);
                sp[-2] = js_bool(res ${cmp} true);
                sp--;
            }
            BREAK;`,
    why:
      `compare with ${op === 'OP_strict_eq' ? '===' : '!=='} two objects (by identity), anything against undefined or null (by its tag) ` +
      'and a string against itself or one of another length without a call, as js_strict_eq_slow decides them: every === whose operands are ' +
      'not two ints was a call that saved and restored registers around a few tests (912,000 calls, 2.4 % of the GraphQL ' +
      'workload in js_strict_eq_slow itself); strings of different lengths were 328,116 of the Avro guest\'s 527,733 calls (avro8)',
  };
}

export const COMPARE_PATCHES: readonly QuickjsPatch[] = [strictEquality('OP_strict_eq', '==', 0), strictEquality('OP_strict_neq', '!=', 1)];
