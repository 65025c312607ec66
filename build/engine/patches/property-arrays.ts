/**
 * Property arrays without a block header (issue 32). Every small block quickjs-ng allocates
 * carries an 8-byte header: its size class and, for objects, shapes and strings, the reference
 * count and collector fields. An object's property array is none of those, and its size is always
 * known where it is allocated, grown or freed: its shape's prop_size slots. So arrays of up to
 * MEP_PROP_SMALL slots come from free lists of their own, one per slot count, carved from 4 KiB
 * chunks (the runtime's, freed with it), and the header's 8 bytes go: in the 3,000-type GraphQL
 * run that is one block per object, 2.79 M of them. Larger arrays are ordinary blocks.
 *
 * Where quickjs-ng's failure paths leave an array larger than its shape says (a shape that could
 * not grow after its array did; an array that could not shrink), it is later freed as the smaller
 * size it is said to be: a larger block on a smaller list, never the reverse, so nothing is
 * overrun; the runtime's byte count then stays a little high.
 */
import type { QuickjsPatch } from './types.ts';

const RESIZE = 'static no_inline int resize_properties(JSContext *ctx, JSShape **psh,';

export const PROPERTY_ARRAY_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'typedef struct JSArenaState {' },
    op: 'before',
    text: '/* mep engine: property arrays of up to this many slots have no block header (patches/property-arrays.ts) */\n#define MEP_PROP_SMALL 32\n',
    why: 'how many slots a headerless property array holds at most',
  },
  {
    file: 'quickjs.c',
    at: { line: '_Alignas(JS_ARENA_ALIGN) uint8_t zero_size_block[sizeof(JSMallocBlockHeader)];' },
    op: 'before',
    text: String.raw`    /* mep engine: free property arrays by slot count (linked through their first word), and the
       rest of the chunk new ones are carved from */
    void *mep_prop_free[MEP_PROP_SMALL + 1];
    uint8_t *mep_prop_carve, *mep_prop_end;`,
    why: 'the state of the headerless property arrays',
  },
  {
    file: 'quickjs.c',
    at: { line: 'js_arena_init(rt);', near: 'JSRuntime *JS_NewRuntime2(const JSMallocFunctions *mf, void *opaque)' },
    op: 'after',
    text: String.raw`    /* mep engine: no free property arrays yet (patches/property-arrays.ts) */
    memset(rt->arena_state.mep_prop_free, 0, sizeof(rt->arena_state.mep_prop_free));
    rt->arena_state.mep_prop_carve = rt->arena_state.mep_prop_end = NULL;`,
    why: 'start with no free property arrays (their chunks are the runtime\'s, freed with it)',
  },
  {
    file: 'quickjs.c',
    at: { line: RESIZE },
    op: 'before',
    text: String.raw`/* mep engine: called once before a guest's snapshot (glue/guest.c), as JS_MepScrubArenas: zero the
   free property arrays but for their link, and the chunk's uncarved rest */
void JS_MepScrubPropArrays(JSRuntime *rt)
{
    JSArenaState *s = &rt->arena_state;
    void *b;
    int n;

    for (n = 1; n <= MEP_PROP_SMALL; n++)
        for (b = s->mep_prop_free[n]; b; b = *(void **)b)
            memset((uint8_t *)b + sizeof(void *), 0, sizeof(JSProperty) * n - sizeof(void *));
    if (s->mep_prop_carve)
        memset(s->mep_prop_carve, 0, s->mep_prop_end - s->mep_prop_carve);
}

/* mep engine: a new headerless property array of n slots carved from the chunk, or a new chunk
   (the old chunk's rest goes on the list of the slots it holds) */
static no_inline JSProperty *mep_prop_carve(JSRuntime *rt, size_t size)
{
    JSArenaState *s = &rt->arena_state;
    size_t rest = s->mep_prop_end - s->mep_prop_carve;
    uint8_t *b;

    if (rest < size) {
        uint8_t *chunk;
        if (unlikely(s->mep_chunk_count >= s->mep_sweep_at))
            mep_sweep_chunks(rt); /* mep engine: patches/chunk-sweep.ts */
        if (!(chunk = rt->mf.js_malloc(rt->malloc_state.opaque, JS_ARENA_SIZE)))
            return NULL;
        s->mep_chunk_count++;
        if (rest >= sizeof(JSProperty)) {
            *(void **)s->mep_prop_carve = s->mep_prop_free[rest / sizeof(JSProperty)];
            s->mep_prop_free[rest / sizeof(JSProperty)] = s->mep_prop_carve;
        }
        *(uint8_t **)chunk = s->mep_chunks;
        s->mep_chunks = chunk;
        s->mep_prop_carve = chunk + JS_ARENA_ALIGN;
        s->mep_prop_end = chunk + JS_ARENA_SIZE;
    }
    b = s->mep_prop_carve;
    s->mep_prop_carve += size;
    return (JSProperty *)b;
}

/* mep engine: a property array of n slots (a shape's prop_size), counted as the runtime's blocks
   are; NULL when memory is out, without throwing */
static inline JSProperty *mep_prop_alloc_rt(JSRuntime *rt, uint32_t n)
{
    JSMallocState *ms = &rt->malloc_state;
    JSArenaState *s = &rt->arena_state;
    size_t size = sizeof(JSProperty) * (n ? n : 1);
    JSProperty *pr;

    if (n > MEP_PROP_SMALL)
        return js_malloc_rt(rt, size);
    n = n ? n : 1;
    if (unlikely(ms->malloc_size + size > ms->malloc_limit - 1))
        return NULL;
    pr = s->mep_prop_free[n];
    if (likely(pr != NULL))
        s->mep_prop_free[n] = *(void **)pr;
    else if (unlikely(!(pr = mep_prop_carve(rt, size))))
        return NULL;
    ms->malloc_count++;
    ms->malloc_size += size;
    return pr;
}

/* mep engine: js_malloc for a property array of n slots: throws when memory is out */
static JSProperty *mep_prop_alloc(JSContext *ctx, uint32_t n)
{
    JSProperty *pr = mep_prop_alloc_rt(ctx->rt, n);

    if (unlikely(!pr))
        JS_ThrowOutOfMemory(ctx);
    return pr;
}

/* mep engine: frees a property array of n slots (its shape's prop_size) */
static inline void mep_prop_free(JSRuntime *rt, JSProperty *pr, uint32_t n)
{
    JSArenaState *s = &rt->arena_state;

    if (n > MEP_PROP_SMALL) {
        js_free_rt(rt, pr);
        return;
    }
    n = n ? n : 1;
    rt->malloc_state.malloc_count--;
    rt->malloc_state.malloc_size -= sizeof(JSProperty) * n;
    *(void **)pr = s->mep_prop_free[n];
    s->mep_prop_free[n] = pr;
}

/* mep engine: js_realloc for a property array of old_n slots to new_n: a new array, the slots
   copied, the old one freed. Growing throws when memory is out (the array stays); shrinking
   cannot fail: the larger array stays */
#ifdef __wasm__
/* V8 runs each memory.copy as a call into C (about 50 instructions around a copy of a few slots):
   the slots are copied by a loop that clang must not turn back into memcpy */
__attribute__((no_builtin("memcpy")))
#endif
static JSProperty *mep_prop_realloc(JSContext *ctx, JSProperty *pr, uint32_t old_n, uint32_t new_n)
{
    JSProperty *npr;
    uint32_t i, n;

    old_n = old_n ? old_n : 1;
    new_n = new_n ? new_n : 1;
    if (new_n == old_n)
        return pr;
    if (old_n > MEP_PROP_SMALL && new_n > MEP_PROP_SMALL)
        return js_realloc(ctx, pr, sizeof(JSProperty) * new_n);
    npr = mep_prop_alloc_rt(ctx->rt, new_n);
    if (unlikely(!npr)) {
        if (new_n < old_n)
            return pr;
        JS_ThrowOutOfMemory(ctx);
        return NULL;
    }
    n = min_uint32(old_n, new_n);
    for (i = 0; i < n; i++)
        npr[i] = pr[i];
    mep_prop_free(ctx->rt, pr, old_n);
    return npr;
}
`,
    why: 'the headerless property arrays (see the file\'s comment)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'new_prop = js_realloc(ctx, p->prop, sizeof(new_prop[0]) * new_size);', near: RESIZE },
    op: 'replace',
    text: '        new_prop = mep_prop_realloc(ctx, p->prop, p->shape->prop_size, new_size); /* mep engine */',
    why: 'grow an object\'s property array as a headerless one',
  },
  {
    file: 'quickjs.c',
    at: { line: 'old_sh = sh;', near: 'static int compact_properties(JSContext *ctx, JSObject *p)' },
    op: 'after',
    text: '    uint32_t mep_old_size = old_sh->prop_size; /* mep engine: the array\'s size, for its shrinking below */',
    why: 'the property array\'s size before compaction: the old shape is freed before the array shrinks',
  },
  {
    file: 'quickjs.c',
    at: { line: 'new_prop = js_realloc(ctx, p->prop, sizeof(new_prop[0]) * new_size);', near: '/* reduce the size of the object properties */' },
    op: 'replace',
    text: '    new_prop = mep_prop_realloc(ctx, p->prop, mep_old_size, new_size); /* mep engine */',
    why: 'shrink an object\'s property array as a headerless one',
  },
  {
    file: 'quickjs.c',
    at: { line: 'p->prop = js_malloc(ctx, sizeof(JSProperty) * sh->prop_size);' },
    op: 'replace',
    text: '    p->prop = mep_prop_alloc(ctx, sh->prop_size); /* mep engine: no block header */',
    why: 'a new object\'s property array without a block header',
  },
  {
    file: 'quickjs.c',
    at: { line: 'js_free_rt(rt, p->prop);', near: 'static void free_object(JSRuntime *rt, JSObject *p)' },
    op: 'replace',
    text: '    mep_prop_free(rt, p->prop, sh->prop_size); /* mep engine: by its shape\'s size */',
    why: 'free an object\'s property array by its size, which its shape holds',
  },
  {
    file: 'quickjs.c',
    at: { from: 'new_prop = js_realloc(ctx, p->prop, sizeof(p->prop[0]) *', to: 'new_sh->prop_size);', sha256: 'e8313c07f891de91' },
    op: 'replace',
    text: '                new_prop = mep_prop_realloc(ctx, p->prop, sh->prop_size, new_sh->prop_size); /* mep engine */',
    why: 'resize an object\'s property array as a headerless one when it takes an existing shape',
  },
];
