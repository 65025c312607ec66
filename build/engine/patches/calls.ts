/**
 * Edits to how the interpreter calls a function (issue 32). Measured with callgrind on the native
 * build (bench/callgrind.bench.ts); each edit's commit names its figures.
 */
import type { QuickjsPatch } from './types.ts';

/** The interpreter's plain calls (`f(x)`, `o.m(x)`), each line that makes one. */
const CALL_SITES = [
  { line: 'ret_val = JS_CallInternal(ctx, call_argv[-1], JS_UNDEFINED,', near: 'CASE(OP_tail_call):', what: 'OP_call' },
  { line: 'ret_val = JS_CallInternal(ctx, call_argv[-1], call_argv[-2],', near: 'CASE(OP_tail_call_method):', what: 'OP_call_method' },
] as const;

export const CALL_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue JS_CallInternal(JSContext *caller_ctx, JSValueConst func_obj,' },
    op: 'before',
    text: String.raw`/* mep engine: a call from the interpreter to a built-in (a C function) goes straight to
   js_call_c_function, as JS_CallInternal would send it after polling interrupts; anything else
   is JS_CallInternal's */
static JSValue JS_CallInternal(JSContext *caller_ctx, JSValueConst func_obj,
                               JSValueConst this_obj, JSValueConst new_target,
                               int argc, JSValueConst *argv, int flags);
static inline __attribute__((always_inline)) JSValue mep_call(JSContext *ctx, JSValueConst func_obj,
                                                              JSValueConst this_obj, JSValueConst new_target,
                                                              int argc, JSValueConst *argv, int flags)
{
    if (JS_VALUE_GET_TAG(func_obj) == JS_TAG_OBJECT &&
        JS_VALUE_GET_OBJ(func_obj)->class_id == JS_CLASS_C_FUNCTION && flags == 0) {
        if (js_poll_interrupts(ctx))
            return JS_EXCEPTION;
        return js_call_c_function(ctx, func_obj, this_obj, argc, argv, 0);
    }
    return JS_CallInternal(ctx, func_obj, this_obj, new_target, argc, argv, flags);
}`,
    why: 'the short call of the edits below',
  },
  ...CALL_SITES.map(
    ({ line, near, what }): QuickjsPatch => ({
      file: 'quickjs.c',
      at: { line, near },
      op: 'replace',
      text: `                ${line.replace('JS_CallInternal(', 'mep_call(')} /* mep engine */`,
      why:
        `call a built-in from ${what} without entering JS_CallInternal: the interpreter's entry saved its registers, ` +
        'tested the callee\'s tag and class and fetched the class\'s call hook before reaching js_call_c_function, and ' +
        'its exit restored them (665,000 such calls in the GraphQL workload)',
    }),
  ),
];
