/** Edits to quickjs-ng's runtime: when the collector runs, `instanceof`. */
import type { QuickjsPatch } from './types.ts';

export const RUNTIME_PATCHES: readonly QuickjsPatch[] = [
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
