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

/* What dlmalloc adds to each block (its chunk header), counted as QuickJS counts it. */
#define DLMALLOC_OVERHEAD 8

static size_t heap_bytes;
/* The lowest heap_bytes since memory was last tight (mep_memory_tight). */
static size_t heap_low = SIZE_MAX;

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
  if (heap_bytes < heap_low) heap_low = heap_bytes;
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

/* Near the cap memory grows by what malloc asks, 64 KiB at a time, and each growth calls this. A
 * collection at every one rescanned the whole heap hundreds of times while live data filled the
 * last megabytes (measured: a GraphQL backend formatting 1.1 MB of SDL spent 590 s of 641 s so).
 * So: collect at the first; while collections free nothing, only at the 2nd, 4th, 8th… growth
 * after it; as soon as the heap has shrunk by a sixteenth since (a collection found garbage),
 * at the next one again. */
static size_t tight_heap;
static unsigned tight_calls, tight_every = 1;

void mep_memory_tight(void) {
  if (!mep_rt) return;
  if (heap_low < tight_heap - tight_heap / 16) tight_every = 1, tight_calls = 0;
  tight_heap = heap_low = heap_bytes;
  if (++tight_calls < tight_every) return;
  tight_calls = 0;
  if (tight_every < (1u << 30)) tight_every *= 2;
  JS_SetGCThreshold(mep_rt, 0);
}
