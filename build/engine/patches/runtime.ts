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
      '        mep_sweep_chunks(rt); /* mep engine: empty chunks of small blocks go back (patches/chunk-sweep.ts) */\n' +
      '        /* mep engine: the embedder\'s threshold (glue/alloc.c), else mep_gc_grown\'s */\n' +
      '        rt->malloc_gc_threshold = (mep_gc_next_threshold ? mep_gc_next_threshold : mep_gc_grown)(rt->malloc_state.malloc_size);',
    why:
      'collect cycles when a small heap has grown 4x (quickjs-ng: 1.5x), a large one by 24 MiB or an eighth ' +
      '(mep_gc_grown): QuickJS scans every live object on each collection, so reading a big input rescanned the growing ' +
      'heap over and over, while reference counting frees acyclic garbage at once anyway; but at 4x a large heap held ' +
      'its cyclic garbage until memory was full (the 3,000-type GraphQL run natively: 487 MB held at most, 316 MB with ' +
      'this and the chunk sweep, 19 collections instead of 4). Each collection also gives empty chunks back ' +
      '(patches/chunk-sweep.ts). An embedder that knows its memory cap sets the threshold itself (the wasm glue: half ' +
      'the room left under the cap, once the cap is near)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static void js_trigger_gc(JSRuntime *rt, size_t size)' },
    op: 'before',
    text: String.raw`/* mep engine: the GC threshold after a collection that left a heap of the given bytes, when the
   embedder sets it (the wasm glue: from the room under its memory cap); NULL: mep_gc_grown */
size_t (*mep_gc_next_threshold)(size_t heap);
static void mep_sweep_chunks(JSRuntime *rt); /* patches/chunk-sweep.ts */

/* mep engine: the GC threshold after a collection that left a heap of the given bytes: 4x it
   while it is small, then MEP_GC_LARGE_STEP more (a collection scans every live object, so
   reading a big input rescanned the growing heap over and over at quickjs-ng's 1.5x, while
   reference counting frees acyclic garbage at once anyway); past that, an eighth more. A heap
   that grew 4x at 40 MB held 120 MB of cyclic garbage before its next collection. */
#define MEP_GC_SMALL ((size_t)8 << 20)
#define MEP_GC_LARGE_STEP (3 * MEP_GC_SMALL)
size_t mep_gc_grown(size_t heap)
{
    if (heap <= MEP_GC_SMALL)
        return heap * 4;
    if (heap / 8 > MEP_GC_LARGE_STEP)
        return heap > SIZE_MAX - heap / 8 ? SIZE_MAX : heap + heap / 8;
    return heap + MEP_GC_LARGE_STEP;
}
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
