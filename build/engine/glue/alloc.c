/*
 * QuickJS's allocator. A JS heap is mostly small blocks — objects, shapes, short strings,
 * property and array storage — and QuickJS allocates and frees them at a furious rate:
 * wasi-libc's dlmalloc (bins, chunk headers, splitting and coalescing) was an eighth of a big
 * guest call. Here blocks of up to SMALL_MAX bytes come from one free list per 8-byte size
 * class, carved from pages that hold a single class, and everything bigger goes to dlmalloc.
 * A page's class is kept in a table indexed by address, so free() needs no header.
 *
 * The price: memory freed in one class is reused only by that class (pages are never given
 * back), so a program that frees many blocks of one size and then allocates another size
 * holds more memory than with dlmalloc. Reference counting frees blocks as soon as they die,
 * so the lists are where a steady JS heap finds its next blocks.
 *
 * The usable size is exact (the class size, or dlmalloc's), so QuickJS accounts the real heap
 * bytes (its GC threshold), appends to a string in place when the block has room and grows
 * arrays into their slack.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

#define GRAIN_SHIFT 3 /* 8-byte classes: every block is aligned for a JSValue or a double */
#define SMALL_MAX 256
#define CLASSES (SMALL_MAX >> GRAIN_SHIFT)
#define PAGE_SHIFT 14 /* 16 KiB pages: a class's last, partly used page wastes little */
#define PAGE (1u << PAGE_SHIFT)
#define PAGES_PER_GRAB 16 /* pages taken from dlmalloc at a time */
#define DLMALLOC_OVERHEAD 8 /* what QuickJS counts per block besides its usable size */

/* Class (1..CLASSES) of each page of the 4 GiB address space, 0 where the page is not ours. */
static uint8_t page_class[1u << (32 - PAGE_SHIFT)];
static void *free_list[CLASSES + 1];
static char *carve[CLASSES + 1], *carve_end[CLASSES + 1];
/* Whole pages taken from dlmalloc and not yet given to a class. */
static char *spare, *spare_end;

JSMallocState *mep_malloc_state;

static char *new_page(void) {
  if (spare == spare_end) {
    spare = aligned_alloc(PAGE, PAGE * PAGES_PER_GRAB);
    if (spare) {
      spare_end = spare + PAGE * PAGES_PER_GRAB;
    } else {
      /* Near the memory cap: one page may still fit. */
      spare = aligned_alloc(PAGE, PAGE);
      if (!spare) return NULL;
      spare_end = spare + PAGE;
    }
  }
  char *page = spare;
  spare += PAGE;
  return page;
}

static inline unsigned class_of_size(size_t size) { return (unsigned)((size + (1u << GRAIN_SHIFT) - 1) >> GRAIN_SHIFT); }
static inline unsigned class_of_block(const void *ptr) { return page_class[(uintptr_t)ptr >> PAGE_SHIFT]; }

static void *small_alloc(unsigned c) {
  void *p = free_list[c];
  if (p) {
    free_list[c] = *(void **)p;
    return p;
  }
  size_t size = (size_t)c << GRAIN_SHIFT;
  if (carve_end[c] - carve[c] < (ptrdiff_t)size) {
    char *page = new_page();
    if (!page) return NULL;
    page_class[(uintptr_t)page >> PAGE_SHIFT] = (uint8_t)c;
    carve[c] = page;
    carve_end[c] = page + PAGE - PAGE % size;
  }
  p = carve[c];
  carve[c] += size;
  return p;
}

static inline void small_free(unsigned c, void *ptr) {
  *(void **)ptr = free_list[c];
  free_list[c] = ptr;
}

static size_t usable_size(const void *ptr) {
  unsigned c = class_of_block(ptr);
  return c ? (size_t)c << GRAIN_SHIFT : malloc_usable_size((void *)ptr);
}

/* What QuickJS counts for a block: small blocks have no header; dlmalloc's have one. */
static inline size_t counted(const void *ptr) {
  return usable_size(ptr) + (class_of_block(ptr) ? 0 : DLMALLOC_OVERHEAD);
}

static void *mep_js_malloc(JSMallocState *s, size_t size) {
  mep_malloc_state = s;
  if (s->malloc_size + size > s->malloc_limit) return NULL;
  void *p = size <= SMALL_MAX ? small_alloc(class_of_size(size ? size : 1)) : malloc(size);
  if (!p) return NULL;
  s->malloc_count++;
  s->malloc_size += counted(p);
  return p;
}

static void mep_js_free(JSMallocState *s, void *ptr) {
  if (!ptr) return;
  s->malloc_count--;
  s->malloc_size -= counted(ptr);
  unsigned c = class_of_block(ptr);
  if (c) small_free(c, ptr);
  else free(ptr);
}

static void *mep_js_realloc(JSMallocState *s, void *ptr, size_t size) {
  if (!ptr) return size ? mep_js_malloc(s, size) : NULL;
  if (size == 0) {
    mep_js_free(s, ptr);
    return NULL;
  }
  unsigned c = class_of_block(ptr);
  if (c) {
    size_t have = (size_t)c << GRAIN_SHIFT;
    if (size <= have) return ptr;
    void *p = mep_js_malloc(s, size);
    if (!p) return NULL;
    memcpy(p, ptr, have);
    mep_js_free(s, ptr);
    return p;
  }
  size_t before = malloc_usable_size(ptr);
  if (size > before && s->malloc_size + (size - before) > s->malloc_limit) return NULL;
  void *p = realloc(ptr, size);
  if (!p) return NULL;
  s->malloc_size += malloc_usable_size(p) - before;
  return p;
}

const JSMallocFunctions mep_malloc_functions = {mep_js_malloc, mep_js_free, mep_js_realloc, usable_size};

void mep_memory_tight(void) {
  if (mep_rt) JS_SetGCThreshold(mep_rt, 0);
}
