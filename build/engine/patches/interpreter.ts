/**
 * Edits to the interpreter loop's dispatch (JS_CallInternal): what every bytecode pays before
 * its own work. Measured with callgrind on the native build (bench/callgrind.bench.ts); each
 * edit's commit names its figures.
 */
import type { QuickjsPatch } from './types.ts';

export const INTERPRETER_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'if (check_dump_flag(ctx->rt, JS_DUMP_BYTECODE_STEP)) dump_single_byte_code(ctx, pc, b, 0);' },
    op: 'replace',
    text: '    /* mep engine: no per-bytecode dump test (nothing sets JS_DUMP_BYTECODE_STEP) */',
    why:
      'dispatch a bytecode without testing the step-dump flag: the engine is built without NDEBUG (its assertions ' +
      'stay), which turns on quickjs-ng\'s debug dumps, and the dispatch of every bytecode loaded the runtime and tested ' +
      'JS_DUMP_BYTECODE_STEP (3 instructions and a branch per bytecode, 35 million bytecodes in the GraphQL workload). ' +
      'Only JS_SetDumpFlags sets it, which nothing in the engine calls; the other dumps stay',
  },
  {
    file: 'quickjs.c',
    at: { line: 'if (check_dump_flag(ctx->rt, JS_DUMP_BYTECODE_STEP))', near: 'ctx = b->realm; /* set the current realm */' },
    op: 'replace',
    text: '    if (0) /* mep engine: no per-call dump test (nothing sets JS_DUMP_BYTECODE_STEP) */',
    why:
      'enter a bytecode function without testing the step-dump flag, as the dispatch above: every JS-to-JS call loaded ' +
      'the runtime and its dump flags to decide whether to print the function\'s name (3 instructions and a branch a ' +
      'call; SHA-256 in the IR lint makes 704 calls a 64-byte block)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'sp[-2] = js_uint32((uint32_t)JS_VALUE_GET_INT(op1) >> v2);', near: 'CASE(OP_shr):' },
    op: 'replace',
    text:
      '                    uint32_t r = (uint32_t)JS_VALUE_GET_INT(op1) >> v2; /* mep engine: an int result inline */\n' +
      '                    sp[-2] = likely(r <= INT32_MAX) ? js_int32(r) : js_float64(r);',
    why:
      '`>>>` of two ints makes its result without a call: js_uint32 is not inlined at -Os, and `x >>> n` / `x >>> 0` is ' +
      'in every round of a hash (the IR lint\'s SHA-256)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue JS_CallInternal(JSContext *caller_ctx, JSValueConst func_obj,' },
    op: 'before',
    text: String.raw`/* mep engine: a bytecode reading a named property of a fast array (an Array or arguments object
   whose elements are in u.array, not a typed array) skips its exotic behaviour when the name is
   not an index, as JS_GetPropertyInternal does: only an index reads the elements */
#define mep_array_named_field(p, atom) ((p)->fast_array && !__JS_AtomIsTaggedInt(atom) && !is_typed_array((p)->class_id))`,
    why: 'the test of the edits below: a fast array\'s exotic behaviour is its elements, which only an index reads',
  },
  ...(['CASE(OP_get_field):', 'CASE(OP_get_field2):'] as const).map(
    (near): QuickjsPatch => ({
      file: 'quickjs.c',
      at: { line: 'if (unlikely(p->is_exotic)) {', near },
      op: 'replace',
      text: '                        if (unlikely(p->is_exotic) && !mep_array_named_field(p, atom)) { /* mep engine */',
      why:
        `read a method of an array (a.push, a.map) in ${near.slice(5, -2)} without the generic property read: an Array is ` +
        'exotic, so the bytecode gave up on its prototype chain and called JS_GetPropertyInternal, which walks the ' +
        'same chain past a fast array for any name that is not an index (231,000 of the GraphQL workload\'s reads)',
    }),
  ),
];
