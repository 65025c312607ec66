/*
 * Zeroes the heap's free memory before the snapshot is taken. The snapshot carries the whole
 * linear memory, and only its zero bytes cost nothing in the module (build/guest/link.ts), but
 * memory that was used and freed keeps its old bytes: compiling the platform globals alone
 * leaves about 450 KB of freed parser and compiler memory behind (quickjs-ng), which every guest
 * would carry. So, at the end of initialization, every free chunk malloc holds is taken whole,
 * zeroed and freed again; what remains are dlmalloc's two words per free chunk. Nothing of this
 * runs after the snapshot.
 *
 * Each chunk is taken whole (the largest block malloc can still hand out, found by halving): a
 * chunk taken in pieces is freed as pieces, and each piece's header stays behind in the memory
 * they coalesce back into, a few bytes that make a whole page non-zero, so one more page every
 * instance of the guest faults in (the Elm frontend: 62 of its 2,438 pages).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

/* memory.c: while set, sbrk refuses to grow the heap, so malloc fails instead of growing it. */
extern int mep_sbrk_frozen;

#define SCRUB_MAX ((size_t)1 << 30)
#define SCRUB_MIN (2 * sizeof(void *))

/* The largest block malloc can hand out without growing the heap (0: none), by bisection on
 * sizes below `below`. A block that fits a size fits every smaller one, so the bisection holds;
 * each trial block goes back at once (a split one coalesces with its rest). */
static size_t largest_block(size_t below) {
  /* Called through a volatile pointer: a malloc only tested and freed is one the compiler may
   * remove, taking it to succeed. */
  static void *(*volatile trial)(size_t) = malloc;
  size_t lo = 0, hi = below; /* lo fits (0 trivially), hi does not */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    void *p = mid < SCRUB_MIN ? NULL : trial(mid);
    if (p) {
      free(p);
      lo = mid;
    } else if (mid < SCRUB_MIN) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo < SCRUB_MIN ? 0 : lo;
}

void mep_scrub_free_memory(void) {
  void *taken = NULL; /* a list through the first word of each block */
  mep_sbrk_frozen = 1;
  size_t below = SCRUB_MAX;
  for (size_t size; (size = largest_block(below + 1)) != 0; below = size) {
    void *p;
    /* Every free chunk of this size, each taken whole (a request of its largest size leaves no rest
     * worth splitting off). */
    while ((p = malloc(size)) != NULL) {
      memset(p, 0, malloc_usable_size(p));
      *(void **)p = taken;
      taken = p;
    }
  }
  mep_sbrk_frozen = 0;
  while (taken) {
    void *next = *(void **)taken;
    *(void **)taken = NULL;
    free(taken);
    taken = next;
  }
}
