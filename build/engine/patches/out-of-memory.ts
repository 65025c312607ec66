/**
 * Edits to quickjs-ng's out-of-memory paths. When an allocation fails, quickjs-ng throws an
 * InternalError, and making that error object may run the cycle collector (JS_NewObjectFromShape
 * starts one past the threshold; the wasm glue sets the threshold to 0 when memory reaches its cap,
 * glue/alloc.c, so there it nearly always does). Whatever the failed operation left half done is
 * then seen by the collector. Found by failing the native build's Nth allocation
 * (build/engine/heap-faults.test.ts); quickjs-ng 0.17.0 without the engine's edits fails the same way.
 */
import type { QuickjsPatch } from './types.ts';

const GROW_SHAPE = 'sh_alloc = js_realloc(ctx, get_alloc_from_shape(sh),';

export const OUT_OF_MEMORY_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: GROW_SHAPE, near: 'static no_inline int resize_properties(JSContext *ctx, JSShape **psh,' },
    op: 'replace',
    text: '        sh_alloc = js_realloc_rt(ctx->rt, get_alloc_from_shape(sh), /* mep engine: throws below */',
    why:
      'a shape that grows in place is taken off the collector\'s list while it is reallocated; when that failed, ' +
      'js_realloc threw at once, and the collector run by making the error saw an object whose shape was on no list: ' +
      'it unlinked the shape through null links and listed it, and the failure path then listed it a second time, ' +
      'so a later collection stopped on the reference-count assertion in gc_decref_child (the 3,000-type GraphQL ' +
      'run at 256 MiB, issue 32). Reallocate without throwing, and throw once the shape is listed again (the edit below)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'list_add_tail(&sh->header.link, &ctx->rt->gc_obj_list);', near: '/* insert again in the GC list */' },
    op: 'after',
    text: '            JS_ThrowOutOfMemory(ctx); /* mep engine: once the shape is listed again */',
    why: 'throw the out-of-memory error of the reallocation above only once the shape is back on the collector\'s list',
  },
  {
    file: 'quickjs.c',
    at: { line: 'new_hash_table = js_realloc(ctx, s->hash_table,', near: 'static void map_hash_resize(JSContext *ctx, JSMapState *s)' },
    op: 'replace',
    text: '    new_hash_table = js_realloc_rt(ctx->rt, s->hash_table, /* mep engine: a failure is no error */',
    why:
      'a Map or Set whose hash table cannot grow keeps the one it has (quickjs-ng: "no reporting of memory allocation ' +
      'failure"), but js_realloc threw all the same: the collector run by making that error saw the new record before ' +
      'its caller had set its value, and marked what the recycled block held there (the 3,000-type GraphQL run stopped ' +
      'on the assertion in gc_decref_child again), and the set that succeeded returned with an exception pending',
  },
];
