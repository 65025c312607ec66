/*
 * Zeroes the heap's free memory before the snapshot is taken. The snapshot carries the whole
 * linear memory, and only its zero bytes cost nothing in the module (build/guest/link.ts), but
 * memory that was used and freed keeps its old bytes: compiling the platform globals alone
 * leaves about 450 KB of freed parser and compiler memory behind (quickjs-ng), which every guest
 * would carry. So, at the end of initialization, every block malloc can still hand out without
 * growing the heap is taken, zeroed and freed again; what remains are dlmalloc's few words per
 * free chunk. Nothing of this runs after the snapshot.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

/* memory.c: while set, sbrk refuses to grow the heap, so malloc fails instead of growing it. */
extern int mep_sbrk_frozen;

void mep_scrub_free_memory(void) {
  void *taken = NULL; /* a list through the first word of each block */
  mep_sbrk_frozen = 1;
  for (size_t size = (size_t)1 << 24; size >= 2 * sizeof(void *); size /= 2) {
    void *p;
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
