/*
 * The break that malloc grows (wasi-libc's dlmalloc calls sbrk). wasi-libc grows linear memory
 * by exactly what dlmalloc asks, 64 KiB at a time for small blocks, so reading a big input
 * into QuickJS objects grows the memory thousands of times — and each `memory.grow` is costly in
 * the host (V8 re-protects pages, replaces `memory.buffer` and accounts external memory, which
 * starts host GCs): measured, 10 MB of JSON spent more time in memory.grow than in parsing.
 * Here the break moves as asked, but memory grows ahead of it by an eighth of its size (at least
 * 1 MiB, at most MAX_RESERVE), so growth costs O(log size) host calls up to 64 MiB and one per
 * 8 MiB past it: what the guest's memory peak shows is the heap, not an eighth more of reserve
 * (22 MiB of a 192 MiB heap). Near the memory cap the reserve shrinks to
 * exactly what is needed, so the cap still holds to the page, and the cycle collector is asked
 * to run at its next chance (mep_memory_tight), whatever its growth threshold says.
 * Near the cap memory takes every page left at once: its end is then the cap, and from there on
 * the collector runs whenever the heap has used half of the room left (mep_memory_room), so
 * garbage is collected before an allocation can fail, not after.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include "engine.h"

#define PAGE 65536u
#define MIN_RESERVE (1u << 20)
#define MAX_RESERVE (8u << 20)

static uintptr_t brk_at; /* 0 until the first call: then the end of memory at that time */
static uintptr_t heap_start; /* where the first block malloc asked for begins */
static uintptr_t cap_end; /* 0 until memory could not grow ahead: then the end of memory, at the cap */

/* Set by scrub.c while it takes every free block: growing then would defeat its purpose. */
int mep_sbrk_frozen;

void *sbrk(intptr_t increment) {
  uintptr_t end = __builtin_wasm_memory_size(0) * PAGE;
  if (brk_at == 0) brk_at = end;
  uintptr_t old = brk_at;
  if (increment == 0) return (void *)old;
  if (mep_sbrk_frozen) {
    errno = ENOMEM;
    return (void *)-1;
  }
  if (increment < 0) { /* dlmalloc never trims with MORECORE_CANNOT_TRIM; refuse like wasi-libc */
    errno = EINVAL;
    return (void *)-1;
  }
  if ((uintptr_t)increment > UINTPTR_MAX - old) {
    errno = ENOMEM;
    return (void *)-1;
  }
  uintptr_t want = old + (uintptr_t)increment;
  if (want > end) {
    uintptr_t needed = (want - end + PAGE - 1) / PAGE;
    uintptr_t reserve = end / 8 < MIN_RESERVE ? MIN_RESERVE : end / 8 > MAX_RESERVE ? MAX_RESERVE : end / 8;
    uintptr_t ahead = needed + reserve / PAGE;
    if (__builtin_wasm_memory_grow(0, ahead) == SIZE_MAX) {
      /* The cap is near: take every page left (halving the ask), so memory ends at the cap and
       * the collector can be paced by the room under it (mep_memory_room). */
      for (uintptr_t ask = ahead / 2; ask > 0;)
        if (__builtin_wasm_memory_grow(0, ask) == SIZE_MAX) ask /= 2;
      cap_end = __builtin_wasm_memory_size(0) * PAGE;
      mep_memory_tight();
      if (want > cap_end) {
        errno = ENOMEM;
        return (void *)-1;
      }
    }
  }
  if (heap_start == 0) heap_start = old;
  brk_at = want;
  return (void *)old;
}

size_t mep_memory_room(void) {
  if (cap_end == 0) return SIZE_MAX;
  size_t held = mep_heap_bytes();
  size_t usable = cap_end - heap_start;
  return held < usable ? usable - held : 0;
}
