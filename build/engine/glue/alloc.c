/*
 * The allocator QuickJS's runtime sits on. quickjs-ng carves every block of up to 512 bytes
 * (objects, shapes, short strings, property tables) from 4 KiB arenas of one size class each, so
 * what reaches this layer is those arenas and the big blocks (long strings, arrays, bytecode):
 * wasi-libc's dlmalloc serves them. This layer counts the bytes it holds (mep_heap_bytes), which
 * is what the glue sets the collector's threshold from: the runtime's own count is not public.
 */
#include <malloc.h>
#include <stdlib.h>
#include "engine.h"

/* Near the cap, the heap grows at least heap / MEP_GC_MIN_STEP between collections. */
#define MEP_GC_MIN_STEP 32

/* What dlmalloc adds to each block (its chunk header), counted as QuickJS counts it. */
#define DLMALLOC_OVERHEAD 8

static size_t heap_bytes;

size_t mep_heap_bytes(void) { return heap_bytes; }

static inline size_t counted(void *p) { return p ? malloc_usable_size(p) + DLMALLOC_OVERHEAD : 0; }

static void *mep_js_calloc(void *opaque, size_t count, size_t size) {
  void *p = calloc(count, size);
  heap_bytes += counted(p);
  return p;
}

static void *mep_js_malloc(void *opaque, size_t size) {
  void *p = malloc(size);
  heap_bytes += counted(p);
  return p;
}

static void mep_js_free(void *opaque, void *ptr) {
  heap_bytes -= counted(ptr);
  free(ptr);
}

static void *mep_js_realloc(void *opaque, void *ptr, size_t size) {
  size_t before = counted(ptr);
  void *p = realloc(ptr, size);
  if (p || size == 0) heap_bytes = heap_bytes - before + counted(p);
  return p;
}

static size_t mep_js_usable_size(const void *ptr) { return malloc_usable_size((void *)ptr); }

const JSMallocFunctions mep_malloc_functions = {mep_js_calloc, mep_js_malloc, mep_js_free, mep_js_realloc, mep_js_usable_size};

/* The GC threshold after a collection that left `heap` bytes: quickjs-ng's as edited
 * (mep_gc_grown, patches/runtime.ts: 4x a small heap, less as it grows) while memory can grow; once it is at its cap (memory.c), the heap plus half the room left, so the
 * collector runs ever more often as live data fills the cap instead of after an allocation failed
 * (each collection halves the distance), but never more often than every MEP_GC_MIN_STEP-th of the
 * heap. Set as quickjs-ng's own threshold (patches/runtime.ts). */
size_t mep_gc_threshold(size_t heap) {
  size_t grown = mep_gc_grown(heap);
  size_t room = mep_memory_room();
  if (room == SIZE_MAX) return grown;
  /* At least a 32nd of the heap between collections: with no room left each would free only the
   * few bytes the last allocations dropped, rescanning the whole heap for them. */
  size_t step = room / 2 > heap / MEP_GC_MIN_STEP ? room / 2 : heap / MEP_GC_MIN_STEP;
  size_t paced = heap + step;
  return paced < grown ? paced : grown;
}

/* Called once, when memory reached its cap (memory.c): the collector runs at its next chance,
 * and from then on at the threshold above. */
void mep_memory_tight(void) {
  if (mep_rt) JS_SetGCThreshold(mep_rt, 0);
}
