/**
 * The interpreter loop's size in V8 (issues 31/32): functions that were inlined into
 * JS_CallInternal only because it is their one caller (clang's bonus for the last call to a static
 * function, and binaryen's one-caller inlining in the wasm-opt run that clang makes on the linked
 * module and the guest build makes again, whatever their size) stay functions of their own. Each
 * is the work of a rare bytecode (classes, private fields, `for in`, `delete`, `in`, `instanceof`,
 * global variables and definitions, `import()`), yet inlined it added its values to the loop's wasm
 * locals, and V8's optimizing compiler keeps every local the loop assigns as a phi at the loop
 * header (the inputs of a loop header's phis are always marked used), so every bytecode's handler
 * paid for them at its jump back to the dispatch: spills, reloads and moves. The wasm build only:
 * the native twin (gcc) is the ratio's other side, and its count rose by 0.1 % on GraphQL with them.
 */
import type { QuickjsPatch } from './types.ts';

/** Definitions kept out of JS_CallInternal: their first line, and its `near` where it is not unique. */
const OUT_OF_LOOP: readonly { line: string; near?: string }[] = [
  { line: 'static JSValue js_dynamic_import(JSContext *ctx, JSValueConst specifier,', near: 'JS_LoadModuleInternal(ctx, basename, filename, resolving_funcs, attributes);' },
  { line: 'static int js_op_define_class(JSContext *ctx, JSValue *sp,' },
  { line: 'static JSValue build_for_in_iterator(JSContext *ctx, JSValue obj)' },
  { line: 'static __exception int js_append_enumerate(JSContext *ctx, JSValue *sp)' },
  { line: 'static int JS_AddBrand(JSContext *ctx, JSValueConst obj, JSValueConst home_obj)' },
  { line: 'static inline int JS_SetGlobalVar(JSContext *ctx, JSAtom prop, JSValue val,' },
  { line: 'static __exception int js_op_using_check(JSContext *ctx, JSValueConst val,' },
  { line: 'static JSValue JS_GetGlobalVar(JSContext *ctx, JSAtom prop,' },
  { line: 'static int JS_GetGlobalVarRef(JSContext *ctx, JSAtom prop, JSValue *sp)' },
  { line: 'static __exception int js_operator_private_in(JSContext *ctx, JSValue *sp)' },
  { line: 'static int JS_DefinePrivateField(JSContext *ctx, JSValueConst obj,' },
  { line: 'static JSValue JS_GetPrivateField(JSContext *ctx, JSValueConst obj,' },
  { line: 'static int JS_SetPrivateField(JSContext *ctx, JSValueConst obj,' },
  { line: 'static __exception int js_for_in_next(JSContext *ctx, JSValue *sp)' },
  { line: 'static __exception int js_for_of_next(JSContext *ctx, JSValue *sp, int offset)' },
  { line: 'static __exception int js_iterator_get_value_done(JSContext *ctx, JSValue *sp)' },
  { line: 'static int JS_CheckDefineGlobalVar(JSContext *ctx, JSAtom prop, int flags)' },
  { line: 'static __exception int js_operator_in(JSContext *ctx, JSValue *sp)' },
  { line: 'static int js_method_set_properties(JSContext *ctx, JSValue func_obj,' },
  { line: 'static __exception int js_operator_delete(JSContext *ctx, JSValue *sp)' },
  { line: 'static int JS_DeleteGlobalVar(JSContext *ctx, JSAtom prop)' },
  { line: 'static __exception int js_has_unscopable(JSContext *ctx, JSValue obj,' },
  { line: 'static __exception int js_operator_instanceof(JSContext *ctx, JSValue *sp)' },
  { line: 'static int JS_DefineGlobalVar(JSContext *ctx, JSAtom prop, int def_flags)' },
  { line: 'static int JS_DefineGlobalFunction(JSContext *ctx, JSAtom prop,' },
];

const nameOf = (line: string): string => /\b(\w+)\(/.exec(line)![1]!;

export const LOOP_LOCALS_PATCHES: readonly QuickjsPatch[] = [
  ...OUT_OF_LOOP.map(
    (at): QuickjsPatch => ({
      file: 'quickjs.c',
      at,
      op: 'before',
      text: '#ifdef __wasm__ /* mep engine: not part of the interpreter loop in V8 (patches/loop-locals.ts) */\n__attribute__((noinline))\n#endif',
      why:
        `keep ${nameOf(at.line)} out of JS_CallInternal, its one caller: clang inlined it there for being called once, ` +
        'and it added its values to the wasm locals that V8 keeps live across every bytecode of the loop',
    }),
  ),
  {
    file: 'quickjs.c',
    at: { line: 'static bool needs_backtrace(JSValue exc)' }, // after every definition above but js_dynamic_import's (declared earlier)
    op: 'before',
    text:
      '/* mep engine: the functions kept out of the interpreter loop (patches/loop-locals.ts) are in the\n' +
      '   function table, so that wasm-opt, which clang runs on the linked module and the guest build runs\n' +
      "   again, does not inline them back into their one caller (binaryen does not see C's noinline) */\n" +
      `#ifdef __wasm__\n__attribute__((used)) static const void *const mep_out_of_loop[] = {\n${OUT_OF_LOOP.map((at) => `    (const void *)${nameOf(at.line)},`).join('\n')}\n};\n#endif`,
    why:
      'binaryen inlines a function that has one caller whatever its size, unless the function is in the table (exported ' +
      'to the host, so it cannot know every caller); taking each address in a kept array puts it there',
  },
];
