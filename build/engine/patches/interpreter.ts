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
];
