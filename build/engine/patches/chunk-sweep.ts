/**
 * Empty chunks of small blocks go back to the runtime's allocator (issue 32). The free-list
 * allocator (./alloc.ts, ./property-arrays.ts) carves blocks of one size class, or property arrays
 * of any slot count, from 4 KiB chunks, and a freed block stays on its class's list: a program
 * whose first stage dies (a parsed input released at an await) and whose next allocates other
 * sizes held both, as the 3,000-type GraphQL run did: natively 110.8 MB live after the collection
 * as prettier starts, 312.9 MB held. Here, after each collection and whenever the chunks grew by
 * an eighth (at least 4 MiB) since the last sweep, the chunks whose blocks are all free go back
 * (that run: 129.1 MB held after the same collection), so another class or a large block reuses
 * their memory. The sweep sorts the chunks by address and finds each free block's chunk by
 * binary search: O(chunks log chunks + free blocks log chunks), only for heaps of 8 MiB of chunks
 * or more, and never in the allocation fast paths. With the collector's steps (./runtime.ts) and
 * memory's reserve capped (glue/memory.c), the real wasm call at the default 256 MiB peaked at
 * 178.3 MiB (212.9 before; 203.1 with those two alone).
 */
import type { QuickjsPatch } from './types.ts';

export const CHUNK_SWEEP_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: '/* mep engine: a block that is not small, counted as quickjs-ng counts it */' },
    op: 'before',
    text: String.raw`/* mep engine: the index of the chunk (sorted by address) holding p */
static size_t mep_chunk_of(uint8_t **chunks, size_t n, const void *p)
{
    size_t lo = 0, hi = n;

    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if ((const uint8_t *)p < chunks[mid])
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

/* mep engine: the chunk count at which the sweep after one of n chunks runs again */
static size_t mep_sweep_next(size_t n)
{
    return n + (n / 8 > MEP_SWEEP_MIN / 2 ? n / 8 : MEP_SWEEP_MIN / 2);
}

static int mep_chunk_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(uint8_t *const *)a, y = (uintptr_t)*(uint8_t *const *)b;
    return x < y ? -1 : x > y;
}

/* mep engine: after a collection (js_trigger_gc), every chunk whose blocks are all on free lists
   goes back to the runtime's allocator, so another size class (or a large block) can use its
   memory: a class's free blocks otherwise stay its own, and a program whose first stage's objects
   die (a parsed input) and whose next allocates other sizes holds both. A chunk is free when its
   free blocks add up to all it can carve: its class's blocks, or property arrays of any slot
   count (patches/property-arrays.ts); a chunk still being carved stays, and so do the chunks a
   guest's initialization carved blocks of every class from (patches/alloc.ts). Only for heaps of
   MEP_SWEEP_MIN chunks or more; nothing happens when the side tables cannot be allocated. */
static void mep_sweep_chunks(JSRuntime *rt)
{
    JSArenaState *s = &rt->arena_state;
    const size_t usable = JS_ARENA_SIZE - JS_ARENA_ALIGN;
    size_t n = 0, mixed = 0, i, k, kept;
    uint8_t *c, **chunks;
    uint16_t *free_bytes, *capacity;
    void **link;
    int idx;

    for (c = s->mep_chunks; c; c = *(uint8_t **)c)
        n++;
    s->mep_chunk_count = n;
    s->mep_sweep_at = mep_sweep_next(n);
    if (n < MEP_SWEEP_MIN)
        return;
    /* the mixed chunks are looked up too (their free blocks must not count for another chunk) */
    for (c = s->mep_mixed_chunks; c; c = *(uint8_t **)c)
        mixed++;
    n += mixed;
    chunks = rt->mf.js_malloc(rt->malloc_state.opaque, n * (sizeof(*chunks) + 2 * sizeof(uint16_t)));
    if (!chunks)
        return;
    free_bytes = (uint16_t *)(chunks + n);
    capacity = free_bytes + n;
    for (i = 0, c = s->mep_chunks; c; c = *(uint8_t **)c)
        chunks[i++] = c;
    for (c = s->mep_mixed_chunks; c; c = *(uint8_t **)c)
        chunks[i++] = c;
    qsort(chunks, n, sizeof(*chunks), mep_chunk_cmp);
    memset(free_bytes, 0, n * 2 * sizeof(uint16_t));
    for (idx = 0; idx < JS_ARENA_BLOCK_SIZE_COUNT; idx++) {
        size_t size = arena_block_sizes[idx];
        for (link = s->mep_free[idx]; link; link = *(void **)((JSMallocBlockHeader *)link)->user_data) {
            k = mep_chunk_of(chunks, n, link);
            free_bytes[k] += size;
            capacity[k] = usable / size * size;
        }
    }
    for (i = 1; i <= MEP_PROP_SMALL; i++) {
        for (link = s->mep_prop_free[i]; link; link = *link) {
            k = mep_chunk_of(chunks, n, link);
            free_bytes[k] += i * sizeof(JSProperty);
            capacity[k] = usable - usable % sizeof(JSProperty);
        }
    }
    /* chunks still carved from stay (their uncarved rest is on no list) */
    for (idx = 0; idx < JS_ARENA_BLOCK_SIZE_COUNT; idx++)
        if (s->mep_carve[idx])
            capacity[mep_chunk_of(chunks, n, s->mep_carve[idx] - 1)] = 0;
    if (s->mep_prop_carve)
        capacity[mep_chunk_of(chunks, n, s->mep_prop_carve - 1)] = 0;
    /* from here on, capacity[k] says whether chunk k is free (1: all it can carve is on lists),
       kept (0) or mixed (2: kept, and on the mixed list) */
    for (k = 0, kept = 0; k < n; k++) {
        capacity[k] = capacity[k] && free_bytes[k] == capacity[k];
        kept += !capacity[k];
    }
    for (c = s->mep_mixed_chunks; c; c = *(uint8_t **)c) {
        k = mep_chunk_of(chunks, n, c);
        kept += capacity[k] == 1;
        capacity[k] = 2;
    }
    if (kept < n) {
        /* the free lists without the blocks of free chunks, then the chunk list */
        for (idx = 0; idx < JS_ARENA_BLOCK_SIZE_COUNT; idx++) {
            void **prev = &s->mep_free[idx];
            for (link = *prev; link; link = *prev) {
                k = mep_chunk_of(chunks, n, link);
                if (capacity[k] == 1)
                    *prev = *(void **)((JSMallocBlockHeader *)link)->user_data;
                else
                    prev = (void **)((JSMallocBlockHeader *)link)->user_data;
            }
        }
        for (i = 1; i <= MEP_PROP_SMALL; i++) {
            void **prev = &s->mep_prop_free[i];
            for (link = *prev; link; link = *prev) {
                k = mep_chunk_of(chunks, n, link);
                if (capacity[k] == 1)
                    *prev = *link;
                else
                    prev = link;
            }
        }
        s->mep_chunks = NULL;
        s->mep_chunk_count = kept - mixed;
        s->mep_sweep_at = mep_sweep_next(kept - mixed);
        for (k = n; k-- > 0;) {
            if (capacity[k] == 1) {
                rt->mf.js_free(rt->malloc_state.opaque, chunks[k]);
            } else if (capacity[k] == 0) {
                *(uint8_t **)chunks[k] = s->mep_chunks;
                s->mep_chunks = chunks[k];
            }
        }
    }
    rt->mf.js_free(rt->malloc_state.opaque, chunks);
}
`,
    why: 'give the chunks whose blocks are all free back to the runtime\'s allocator (see the file\'s comment)',
  },
];
