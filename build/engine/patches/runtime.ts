/** Edits to quickjs-ng's runtime: when the collector runs, `instanceof`. */
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
      '        /* mep engine: MEP_GC_GROWTH (glue/engine.h), the heap grows 4x between collections */\n' +
      '        rt->malloc_gc_threshold = rt->malloc_state.malloc_size > SIZE_MAX / 4 ? SIZE_MAX : rt->malloc_state.malloc_size * 4;',
    why:
      'collect cycles when the heap has grown 4x, not 1.5x: QuickJS scans every live object on each collection, so reading ' +
      'a big input (hundreds of thousands of objects) rescanned the growing heap over and over, while reference counting ' +
      'frees acyclic garbage at once anyway',
  },
];
