/** Edits to quickjs-ng's runtime: bytecode dispatch, when the collector runs, reference counts inline. */
import type { QuickjsPatch } from './types.ts';

export const RUNTIME_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: '#if defined(EMSCRIPTEN) || defined(_MSC_VER)' },
    op: 'replace',
    text: '#if defined(EMSCRIPTEN) || defined(_MSC_VER) || defined(__wasm__) /* mep engine: a switch in wasm */',
    why:
      'dispatch bytecodes with a switch in wasm, as quickjs-ng does for Emscripten: wasm has no computed goto, and clang ' +
      'lowers quickjs-ng\'s dispatch table into control flow V8 runs slower. Measured, morphir-elm compiling 10 modules in ' +
      'the sandbox, same run: 28.1 s with the table, 23.1 s with the switch (the native build of the same sources 22.0 and ' +
      '26.7 s beside them)',
  },
  {
    file: 'quickjs.c',
    at: { from: 'rt->malloc_gc_threshold = rt->malloc_state.malloc_size +', to: '(rt->malloc_state.malloc_size >> 1);', near: 'static void js_trigger_gc(JSRuntime *rt, size_t size)', sha256: '95c8be25dafe7702' },
    op: 'replace',
    text:
      '        /* mep engine: the embedder\'s threshold (glue/alloc.c), else MEP_GC_GROWTH: the heap grows 4x */\n' +
      '        rt->malloc_gc_threshold = mep_gc_next_threshold ? mep_gc_next_threshold(rt->malloc_state.malloc_size)\n' +
      '            : rt->malloc_state.malloc_size > SIZE_MAX / 4 ? SIZE_MAX : rt->malloc_state.malloc_size * 4;',
    why:
      'collect cycles when the heap has grown 4x, not 1.5x: QuickJS scans every live object on each collection, so reading ' +
      'a big input (hundreds of thousands of objects) rescanned the growing heap over and over, while reference counting ' +
      'frees acyclic garbage at once anyway. An embedder that knows its memory cap sets the threshold itself (the wasm ' +
      'glue: half the room left under the cap, once the cap is near)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static void js_trigger_gc(JSRuntime *rt, size_t size)' },
    op: 'before',
    text: String.raw`/* mep engine: the GC threshold after a collection that left a heap of the given bytes, when the
   embedder sets it (the wasm glue: from the room under its memory cap); NULL: 4x the heap */
size_t (*mep_gc_next_threshold)(size_t heap);
`,
    why: 'let the wasm glue tie the collector to its memory cap (see the edit below)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'void JS_FreeValueRT(JSRuntime *rt, JSValue v)' },
    op: 'replace',
    text: '__attribute__((always_inline)) void JS_FreeValueRT(JSRuntime *rt, JSValue v) /* mep engine: inline */',
    why:
      'drop a reference inline, as QuickJS 2021 did (its JS_FreeValue was a static inline in quickjs.h): quickjs-ng ' +
      'made JS_FreeValue and JS_FreeValueRT functions of the library, so each of the 1,400 places in quickjs.c that ' +
      'drops a value made two calls to decrement a count; now JS_FreeValue is one call and the runtime\'s own frees none',
  },
  {
    file: 'quickjs.c',
    at: { line: 'void JS_FreeValue(JSContext *ctx, JSValue v)' },
    op: 'replace',
    text: 'no_inline void JS_FreeValue(JSContext *ctx, JSValue v) /* mep engine: one call */',
    why: 'keep JS_FreeValue one call: inlined at its 1,400 places it made the engine 70 KB larger',
  },
];
