/**
 * Edits to quickjs-ng's small-block allocator: one free list per size class instead of arenas
 * that count their blocks. quickjs-ng carves every block of up to 512 bytes (header included) from
 * 4 KiB arenas, and each allocation and free keeps the arena's count, its place on two lists and,
 * when the arena empties, gives it back; a big JSON document allocates and frees millions of such
 * blocks. Here a class's free blocks form a list through their first word and new ones are carved
 * from 4 KiB chunks taken from the runtime's allocator (glue/alloc.c), so either operation is a
 * few loads and stores. The block header (size class, reference count, GC fields) is quickjs-ng's
 * own and unchanged, so the rest of the runtime sees the same blocks. Measured with callgrind on
 * the native -Os build: a 10 MB generate-shaped round trip 3,440 M -> 3,265 M instructions (-5 %).
 *
 * The price, as QuickJS 2021's engine paid it (glue/alloc.c there): a block freed in one class is
 * reused only by that class and chunks go back only when the runtime is freed, so a guest that
 * frees many blocks of one size and then allocates another holds more memory than with arenas.
 * Reference counting frees blocks as soon as they die, so a steady heap finds its next blocks
 * on the lists.
 */
import type { QuickjsPatch } from './types.ts';

export const ALLOC_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'struct list_head arena_list[JS_ARENA_BLOCK_SIZE_COUNT];' },
    op: 'replace',
    text: String.raw`    /* mep engine: chunks of small blocks held (8 MiB) before their empty ones go back, when
       a collection ran or MEP_SWEEP_MIN / 2 (or an eighth more) chunks were added since the last
       sweep (mep_sweep_chunks, patches/chunk-sweep.ts) */
#define MEP_SWEEP_MIN 2048
    /* mep engine: per size class, its free blocks (linked through their first word) and the
       rest of the chunk it carves new ones from; every chunk, linked through its first word */
    void *mep_free[JS_ARENA_BLOCK_SIZE_COUNT];
    uint8_t *mep_carve[JS_ARENA_BLOCK_SIZE_COUNT];
    uint8_t *mep_carve_end[JS_ARENA_BLOCK_SIZE_COUNT];
    uint8_t *mep_chunks;
    size_t mep_chunk_count, mep_sweep_at; /* chunks held, and at how many the next sweep runs */
    /* mep engine: the first MEP_MIXED_CHUNKS chunks, and every chunk while a guest initializes,
       are carved by blocks of every class (mep_arena_carve_shared); listed apart, never swept */
#define MEP_MIXED_CHUNKS 512
    uint8_t *mep_mixed_chunks, *mep_mixed_carve, *mep_mixed_end;
    size_t mep_mixed_count;
    uint8_t mep_class[JS_ARENA_MAX_SMALL_SIZE / JS_ARENA_ALIGN + 1]; /* by total size / 8 */`,
    why: 'the state of the free-list allocator below, in place of the arena lists',
  },
  {
    file: 'quickjs.c',
    at: { line: 'struct list_head free_arena_list[JS_ARENA_BLOCK_SIZE_COUNT];' },
    op: 'replace',
    text: '',
    why: 'the arena lists go (see the edit above)',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'static void js_arena_init(JSRuntime *rt)', sha256: 'f4815547583eb412' },
    op: 'replace',
    text: String.raw`static void js_arena_init(JSRuntime *rt)
{
    JSArenaState *s = &rt->arena_state;
    size_t i;

    /* mep engine: empty lists and chunks (the runtime may not come zeroed), and the size class of
       each total size, looked up instead of worked out */
    memset(s->mep_free, 0, sizeof(s->mep_free));
    memset(s->mep_carve, 0, sizeof(s->mep_carve));
    memset(s->mep_carve_end, 0, sizeof(s->mep_carve_end));
    s->mep_chunks = NULL;
    s->mep_mixed_chunks = s->mep_mixed_carve = s->mep_mixed_end = NULL;
    s->mep_mixed_count = 0;
    s->mep_chunk_count = 0;
    s->mep_sweep_at = MEP_SWEEP_MIN;
    for (i = 0; i < countof(s->mep_class); i++)
        s->mep_class[i] = arena_get_size_index(i * JS_ARENA_ALIGN);
    arena_zero_block(rt)->u.block_idx = JS_ARENA_FREE_NIL;
}`,
    why: 'start the free-list allocator empty',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'static no_inline JSArena *arena_new(JSRuntime *rt, int block_size_idx)', sha256: '2d136cd75c13acce' },
    op: 'replace',
    text: String.raw`/* mep engine: small blocks of every class are carved from one chunk at a time while the runtime
   holds fewer than MEP_MIXED_CHUNKS chunks of them (2 MiB), and whatever it holds while this is set
   (a guest's initialization, glue/guest.c). A guest's snapshot then holds one part-carved chunk
   instead of one per class, whose uncarved rests spread the live blocks over more pages (the small
   extension: 15 of its pages, the Elm frontend 64), each faulted in by every instance; and its
   first calls carve from that chunk, not from a new chunk per class (new pages). Such chunks are
   never swept (patches/chunk-sweep.ts: their blocks are of many classes); the sweep only runs on
   heaps of far more chunks */
int mep_arena_shared_carve;

/* mep engine: a new block of class idx carved from the shared chunk, or a new shared chunk */
static no_inline JSMallocBlockHeader *mep_arena_carve_shared(JSRuntime *rt, int idx)
{
    JSArenaState *s = &rt->arena_state;
    size_t block_size = arena_block_sizes[idx];
    JSMallocBlockHeader *b;

    if ((size_t)(s->mep_mixed_end - s->mep_mixed_carve) < block_size) {
        uint8_t *chunk;
        if (!(chunk = rt->mf.js_malloc(rt->malloc_state.opaque, JS_ARENA_SIZE)))
            return NULL;
        if (s->mep_mixed_carve) /* the rest too small for this block stays zero */
            memset(s->mep_mixed_carve, 0, s->mep_mixed_end - s->mep_mixed_carve);
        *(uint8_t **)chunk = s->mep_mixed_chunks;
        s->mep_mixed_chunks = chunk;
        s->mep_mixed_count++;
        s->mep_mixed_carve = chunk + JS_ARENA_ALIGN;
        s->mep_mixed_end = chunk + JS_ARENA_SIZE;
    }
    b = (JSMallocBlockHeader *)s->mep_mixed_carve;
    s->mep_mixed_carve += block_size;
    return b;
}

/* mep engine: a new block of class idx carved from the class's chunk, or a new chunk */
static no_inline JSMallocBlockHeader *mep_arena_carve(JSRuntime *rt, int idx)
{
    JSArenaState *s = &rt->arena_state;
    size_t block_size = arena_block_sizes[idx];
    JSMallocBlockHeader *b;

    if (s->mep_mixed_count < MEP_MIXED_CHUNKS || unlikely(mep_arena_shared_carve))
        return mep_arena_carve_shared(rt, idx);
    if ((size_t)(s->mep_carve_end[idx] - s->mep_carve[idx]) < block_size) {
        uint8_t *chunk;
        if (unlikely(s->mep_chunk_count >= s->mep_sweep_at))
            mep_sweep_chunks(rt);
        if (!(chunk = rt->mf.js_malloc(rt->malloc_state.opaque, JS_ARENA_SIZE)))
            return NULL;
        s->mep_chunk_count++;
        *(uint8_t **)chunk = s->mep_chunks;
        s->mep_chunks = chunk;
        s->mep_carve[idx] = chunk + JS_ARENA_ALIGN;
        s->mep_carve_end[idx] = chunk + JS_ARENA_SIZE;
    }
    b = (JSMallocBlockHeader *)s->mep_carve[idx];
    s->mep_carve[idx] += block_size;
    return b;
}

/* mep engine: the size class of a block of size bytes (not 0), or -1 when it is not small */
static inline __attribute__((always_inline)) int mep_arena_class(JSArenaState *s, size_t size)
{
    size_t units = (size + JS_ARENA_ALIGN - 1) / JS_ARENA_ALIGN + sizeof(JSMallocBlockHeader) / JS_ARENA_ALIGN;

    if (JS_ARENA_LARGE_BLOCKS_ONLY || unlikely(units >= countof(s->mep_class)))
        return -1;
    return s->mep_class[units];
}

/* mep engine: a block of class idx, off its free list or carved; marked small */
static inline __attribute__((always_inline)) JSMallocBlockHeader *mep_arena_take(JSRuntime *rt, int idx)
{
    JSArenaState *s = &rt->arena_state;
    JSMallocBlockHeader *b = s->mep_free[idx];

    if (likely(b != NULL))
        s->mep_free[idx] = *(void **)b->user_data;
    else if (unlikely(!(b = mep_arena_carve(rt, idx))))
        return NULL;
    b->u.block_idx = 0; /* not JS_ARENA_FREE_NIL: a small block */
    b->block_size_idx = idx;
    return b;
}`,
    why:
      'a class takes new blocks from a chunk of its own, in place of a new arena with its blocks listed; its class is ' +
      'looked up by size in eighths of a table',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'static void *js_arena_malloc(JSRuntime *rt, size_t size)', sha256: '330c75a5b6b856f3' },
    op: 'replace',
    text: String.raw`/* mep engine: a small block from its class's free list (or carved), a large one from the
   runtime's allocator */
static inline void *js_arena_malloc(JSRuntime *rt, size_t size)
{
    JSMallocBlockHeader *b;
    int idx;

    if (unlikely(size == 0))
        return arena_zero_block(rt)->user_data;
    idx = mep_arena_class(&rt->arena_state, size);
    if (idx < 0)
        return arena_malloc_large(rt, size);
    b = mep_arena_take(rt, idx);
    return b ? b->user_data : NULL;
}`,
    why:
      'allocate a small block from its size class\'s free list: quickjs-ng found the class\'s first arena with room, ' +
      'took its first free block by index and counted it, moving the arena off its list when full',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'static void js_arena_free(JSRuntime *rt, void *ptr)', sha256: 'abaae4ff41548c4e' },
    op: 'replace',
    text: String.raw`/* mep engine: a small block goes on its class's free list, a large one back to the runtime's
   allocator */
static inline void js_arena_free(JSRuntime *rt, void *ptr)
{
    JSMallocBlockHeader *b;

    if (!ptr)
        return;
    b = container_of(ptr, JSMallocBlockHeader, user_data);
    if (unlikely(b->u.block_idx == JS_ARENA_FREE_NIL)) {
        if (b != arena_zero_block(rt))
            rt->mf.js_free(rt->malloc_state.opaque, b);
        return;
    }
    *(void **)ptr = rt->arena_state.mep_free[b->block_size_idx];
    rt->arena_state.mep_free[b->block_size_idx] = b;
}`,
    why:
      'free a small block onto its class\'s free list: quickjs-ng found its arena from the block\'s index, counted it ' +
      'and moved the arena between lists, giving it back when empty',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'static void js_arena_free_all(JSRuntime *rt)', sha256: '649529f8116d7cb5' },
    op: 'replace',
    text: String.raw`/* mep engine: every chunk goes back when the runtime is freed */
static void js_arena_free_all(JSRuntime *rt)
{
    JSArenaState *s = &rt->arena_state;

    while (s->mep_chunks) {
        uint8_t *next = *(uint8_t **)s->mep_chunks;
        rt->mf.js_free(rt->malloc_state.opaque, s->mep_chunks);
        s->mep_chunks = next;
    }
    while (s->mep_mixed_chunks) {
        uint8_t *next = *(uint8_t **)s->mep_mixed_chunks;
        rt->mf.js_free(rt->malloc_state.opaque, s->mep_mixed_chunks);
        s->mep_mixed_chunks = next;
    }
    js_arena_init(rt);
}

/* mep engine: called once before a guest's snapshot (glue/guest.c): only zero bytes cost nothing
   in the module, and the free blocks still hold what the platform globals' compilation left in
   them. Each free block is zeroed but for its link, and the uncarved rest of each class's chunk */
void JS_MepScrubArenas(JSRuntime *rt)
{
    JSArenaState *s = &rt->arena_state;
    JSMallocBlockHeader *b;
    int i;

    for (i = 0; i < JS_ARENA_BLOCK_SIZE_COUNT; i++) {
        for (b = s->mep_free[i]; b; b = *(void **)b->user_data) {
            memset(b, 0, sizeof(*b));
            memset(b->user_data + sizeof(void *), 0, arena_block_sizes[i] - sizeof(*b) - sizeof(void *));
        }
        if (s->mep_carve[i])
            memset(s->mep_carve[i], 0, s->mep_carve_end[i] - s->mep_carve[i]);
    }
    if (s->mep_mixed_carve)
        memset(s->mep_mixed_carve, 0, s->mep_mixed_end - s->mep_mixed_carve);
}
`,
    why: 'give the chunks back when the runtime is freed; zero the free blocks before a snapshot',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'void *js_malloc_rt(JSRuntime *rt, size_t size)', sha256: '163148b3682c0fb1' },
    op: 'replace',
    text: String.raw`/* mep engine: a block that is not small, counted as quickjs-ng counts it */
static no_inline void *mep_malloc_large_rt(JSRuntime *rt, size_t size)
{
    void *ptr = js_arena_malloc(rt, size);

    if (!ptr)
        return NULL;
    rt->malloc_state.malloc_count++;
    rt->malloc_state.malloc_size += js_arena_usable_size(rt, ptr) + MALLOC_OVERHEAD;
    return ptr;
}

/* mep engine: js_malloc_rt inline, a small block's class looked up once and counted by it */
__attribute__((always_inline)) void *js_malloc_rt(JSRuntime *rt, size_t size)
{
    JSMallocState *s = &rt->malloc_state;
    JSMallocBlockHeader *b;
    int idx;

    if (unlikely(size == 0))
        return NULL; /* as quickjs-ng: what zero bytes are is up to each allocator */
    /* a limit of 0 (none) is SIZE_MAX here */
    if (unlikely(s->malloc_size + size > s->malloc_limit - 1))
        return NULL;
    idx = mep_arena_class(&rt->arena_state, size);
    if (unlikely(idx < 0))
        return mep_malloc_large_rt(rt, size);
    if (unlikely(!(b = mep_arena_take(rt, idx))))
        return NULL;
    s->malloc_count++;
    s->malloc_size += arena_block_sizes[idx] - sizeof(JSMallocBlockHeader) + MALLOC_OVERHEAD;
    return b->user_data;
}`,
    why:
      'allocate a small block in one inline step: quickjs-ng\'s js_malloc_rt called the arena allocator, then read the ' +
      'block\'s header back to learn its size for the count',
  },
  {
    file: 'quickjs.c',
    at: { fn: 'void js_free_rt(JSRuntime *rt, void *ptr)', sha256: 'abe43d526344e938' },
    op: 'replace',
    text: String.raw`/* mep engine: the count would go below zero: a block freed twice, or not the runtime's */
static no_inline void mep_free_underflow(size_t size, size_t held)
{
    printf("js_free_rt: malloc_size underflow: freeing %zu but only %zu tracked\n", size, held);
    abort();
}

/* mep engine: a block that is not small (or the zero-size one), uncounted as quickjs-ng does */
static no_inline void mep_free_large_rt(JSRuntime *rt, void *ptr)
{
    size_t size = js_arena_usable_size(rt, ptr) + MALLOC_OVERHEAD;

    if (unlikely(size > rt->malloc_state.malloc_size))
        mep_free_underflow(size, rt->malloc_state.malloc_size);
    rt->malloc_state.malloc_count--;
    rt->malloc_state.malloc_size -= size;
    js_arena_free(rt, ptr);
}

/* mep engine: js_free_rt inline, a small block straight onto its class's free list */
__attribute__((always_inline)) void js_free_rt(JSRuntime *rt, void *ptr)
{
    JSMallocState *s = &rt->malloc_state;
    JSMallocBlockHeader *b;
    size_t size;
    int idx;

    if (!ptr)
        return;
    b = container_of(ptr, JSMallocBlockHeader, user_data);
    if (unlikely(b->u.block_idx == JS_ARENA_FREE_NIL)) {
        mep_free_large_rt(rt, ptr);
        return;
    }
    idx = b->block_size_idx;
    size = arena_block_sizes[idx] - sizeof(JSMallocBlockHeader) + MALLOC_OVERHEAD;
    if (unlikely(size > s->malloc_size))
        mep_free_underflow(size, s->malloc_size);
    s->malloc_count--;
    s->malloc_size -= size;
    *(void **)ptr = rt->arena_state.mep_free[idx];
    rt->arena_state.mep_free[idx] = b;
}`,
    why:
      'free a small block in one inline step: quickjs-ng\'s js_free_rt read its header for the size, then called the ' +
      'arena allocator, which read it again',
  },
  {
    file: 'quickjs.c',
    at: { line: 'old_size = js_arena_usable_size(rt, ptr);', near: 'void *js_realloc_rt(JSRuntime *rt, void *ptr, size_t size)' },
    op: 'before',
    text: String.raw`    /* mep engine: a small block stays when it fits, or moves to a block of its new class straight
       off that class's free list and goes onto its own, as js_arena_realloc does through calls;
       the rest (a large block, or one that becomes large) goes on below */
    {
        JSMallocBlockHeader *mep_b = container_of(ptr, JSMallocBlockHeader, user_data), *mep_nb;
        JSMallocState *mep_s = &rt->malloc_state;
        size_t mep_old;
        int mep_idx;

        if (likely(mep_b->u.block_idx != JS_ARENA_FREE_NIL)) {
            mep_old = arena_block_sizes[mep_b->block_size_idx] - sizeof(JSMallocBlockHeader);
            if (mep_s->malloc_size + size - mep_old > mep_s->malloc_limit - 1)
                return NULL;
            if (size <= mep_old)
                return ptr;
            mep_idx = mep_arena_class(&rt->arena_state, size);
            if (mep_idx >= 0) {
                if (unlikely(!(mep_nb = mep_arena_take(rt, mep_idx))))
                    return NULL;
                mep_nb->gc_obj_type = mep_b->gc_obj_type;
                mep_nb->mark = mep_b->mark;
                mep_nb->ref_count = mep_b->ref_count;
                memcpy(mep_nb->user_data, ptr, mep_old);
                *(void **)ptr = rt->arena_state.mep_free[mep_b->block_size_idx];
                rt->arena_state.mep_free[mep_b->block_size_idx] = mep_b;
                mep_s->malloc_size += arena_block_sizes[mep_idx] - sizeof(JSMallocBlockHeader) - mep_old;
                return mep_nb->user_data;
            }
        }
    }`,
    why:
      'grow a small block without four calls: an object\'s property array grows as it gains properties (every Elm ' +
      'record and graphql-js object past two), and js_realloc_rt asked the arena allocator its size twice, to allocate, ' +
      'to copy and to free, each a call (2.7 % of compiling a small Elm project)',
  },
];

