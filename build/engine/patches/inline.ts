/**
 * Edits that inline the interpreter's smallest, hottest helpers. At -Os neither gcc nor clang
 * inlines them, so every bytecode that copies a value (`js_dup`), drops one (`JS_FreeValue`),
 * counts down to the next interrupt poll (`js_poll_interrupts`) or looks up a property on a shape
 * (`find_own_property`) paid a call for a few instructions. Measured with callgrind on the native
 * -Os build (bench/callgrind.bench.ts); each edit's commit names its figures.
 */
import type { QuickjsPatch } from './types.ts';

/** The edit that makes the static function declared on `line` always inline. */
function alwaysInline(line: string, why: string): QuickjsPatch {
  const text = `${line.replace(/^static (inline )?/, 'static inline __attribute__((always_inline)) ')} /* mep engine: inline */`;
  return { file: 'quickjs.c', at: { line }, op: 'replace', text, why };
}

export const INLINE_PATCHES: readonly QuickjsPatch[] = [
  alwaysInline(
    'static JSValue js_dup(JSValueConst v)',
    'copy a value without a call: js_dup is a test and an increment, and it was 3.8 % of the GraphQL workload\'s ' +
      'instructions as calls',
  ),
  alwaysInline(
    'static inline __exception int js_poll_interrupts(JSContext *ctx)',
    'count down to the next interrupt poll without a call: every call and backward jump does it (1.7 % of the GraphQL workload as calls)',
  ),
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue JS_CallInternal(JSContext *caller_ctx, JSValueConst func_obj,' },
    op: 'before',
    text:
      '/* mep engine: inside the interpreter a value is dropped inline (JS_FreeValue stays one call elsewhere) */\n' +
      '#define JS_FreeValue(ctx, v) JS_FreeValueRT((ctx)->rt, (v))',
    why:
      'drop a value inline in the interpreter loop: JS_FreeValue is kept one call for size (runtime.ts), but the ' +
      'interpreter drops a value in most bytecodes (4.5 % of the GraphQL workload as calls)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'JSValue JS_Call(JSContext *ctx, JSValueConst func_obj, JSValueConst this_obj,' },
    op: 'before',
    text: '#undef JS_FreeValue /* mep engine: the interpreter loop ends above */',
    why: 'end the inline drop of the edit above where JS_CallInternal ends',
  },
  alwaysInline('static inline uint32_t *prop_hash_end(JSShape *sh)', 'one addition, made a call at -Os on every property lookup (1.5 % of the GraphQL workload)'),
  alwaysInline(
    'static inline JSShapeProperty *find_own_property(JSProperty **ppr,',
    'look a property up in the shape\'s hash without a call: the lookup of every property access (6.2 % of the GraphQL workload as calls)',
  ),
  {
    file: 'quickjs.c',
    at: { line: 'if (!lre_js_is_ident_next(c))', near: 'static JSAtom parse_ident(JSParseState *s, const uint8_t **pp,' },
    op: 'replace',
    text:
      '        /* mep engine: an ASCII character is looked up in the table inline */\n' +
      '        if (!((uint32_t)c < 128 ? (lre_id_continue_table_ascii[c >> 5] >> (c & 31)) & 1 : lre_js_is_ident_next(c)))',
    why:
      'test each character of an identifier against the ASCII table without a call: at -Os lre_js_is_ident_next stays a ' +
      'function, called once per character the tokenizer reads (3 % of compiling a small Elm project, most of it in parsing morphir-elm\'s compiler)',
  },
  alwaysInline('static uintptr_t hash_atom(JSAtom atom, uintptr_t mask)', 'the hash of a property\'s atom in a shape, a call at -Os on every property lookup (1.2 % of compiling a small Elm project)'),
  alwaysInline('static inline JSShapeProperty *get_shape_prop(JSShape *sh)', 'one addition, a call at -Os wherever a shape\'s properties are read'),
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue JS_CallInternal(JSContext *caller_ctx, JSValueConst func_obj,' },
    op: 'before',
    text:
      '/* mep engine: inside the interpreter a slot is overwritten and its old value dropped inline */\n' +
      'static inline __attribute__((always_inline)) void mep_set_value(JSContext *ctx, JSValue *pval, JSValue new_val)\n' +
      '{\n' +
      '    JSValue old_val = *pval;\n' +
      '    *pval = new_val;\n' +
      '    JS_FreeValueRT(ctx->rt, old_val);\n' +
      '}\n' +
      '#define set_value(ctx, pval, v) mep_set_value(ctx, pval, v)',
    why:
      'store into a local, argument or closure variable without two calls: set_value stays a call at -Os and drops the ' +
      'old value through JS_FreeValue, another (2.9 million calls, 1.8 % of the GraphQL workload)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'JSValue JS_Call(JSContext *ctx, JSValueConst func_obj, JSValueConst this_obj,' },
    op: 'before',
    text: '#undef set_value /* mep engine: the interpreter loop ends above */',
    why: 'end the inline store of the edit above where JS_CallInternal ends',
  },
];

