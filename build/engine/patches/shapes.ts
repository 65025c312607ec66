/**
 * Shape transitions kept for the next object (issue 32). quickjs-ng finds an object's next shape
 * in its runtime-wide hash of shapes (same prototype, same properties plus the new one), but a
 * shape that only one object holds is grown in place: the first object built as `{a, b, c}` turns
 * its shape `[a]` into `[a, b]` and then `[a, b, c]`, so the next object built the same way finds
 * no `[a]` and no `[a, b]` to move to and grows a shape of its own, clone, reallocation and rehash
 * each step, until the last step finds the first object's `[a, b, c]`. Here a shape of fewer than
 * MEP_SHAPE_CHAIN properties is cloned instead of grown in place, and the clone holds its parent
 * (`mep_parent`), so `[a]` and `[a, b]` stay hashed while an object of `[a, b, c]` lives and the
 * next object takes them step by step. The parent holds the same prototype as its child, so no
 * object lives longer than before (the collector sees the edge: mark_children); a shape's
 * ancestors are freed with it. Larger shapes (dictionaries) still grow in place.
 */
import type { QuickjsPatch } from './types.ts';

const FREE_SHAPE = 'static void js_free_shape0(JSRuntime *rt, JSShape *sh)';

export const SHAPE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'JSObject *proto;', near: 'struct JSShape {' },
    op: 'after',
    text: '    struct JSShape *mep_parent; /* mep engine: the shape this one was cloned from to add a property, held (patches/shapes.ts) */\n    struct JSShape *mep_child; /* mep engine: the last shape cloned from this one, not held: it clears or moves this when it goes */',
    why: 'a small shape holds the one it grew from, so the transition stays for the next object of that layout',
  },
  {
    file: 'quickjs.c',
    at: { line: 'typedef struct JSArenaState {' },
    op: 'before',
    text: '/* mep engine: shapes of fewer properties than this are cloned, not grown in place, to add one (patches/shapes.ts) */\n#define MEP_SHAPE_CHAIN 8\n',
    why: 'how small a shape must be to be cloned, holding its parent, rather than grown in place',
  },
  {
    file: 'quickjs.c',
    at: { line: 'sh->is_hashed = false;', near: 'static inline JSShape *js_new_shape_nohash(JSContext *ctx, JSObject *proto,' },
    op: 'after',
    text: '    sh->mep_parent = sh->mep_child = NULL; /* mep engine (patches/shapes.ts) */',
    why: 'a new shape has no parent',
  },
  {
    file: 'quickjs.c',
    at: { line: 'sh->is_hashed = false;', near: 'static JSShape *js_clone_shape(JSContext *ctx, JSShape *sh1)' },
    op: 'after',
    text: '    sh->mep_parent = sh->mep_child = NULL; /* mep engine: the copy has no parent or child of the original\'s (patches/shapes.ts) */',
    why: 'a clone starts without a parent; add_property gives it one',
  },
  {
    file: 'quickjs.c',
    at: { line: 'pr = get_shape_prop(sh);', near: FREE_SHAPE },
    op: 'before',
    text: String.raw`    if (sh->mep_parent) { /* mep engine: forget this child, release the parent (patches/shapes.ts) */
        if (sh->mep_parent->mep_child == sh)
            sh->mep_parent->mep_child = NULL;
        if (--JS_REF_COUNT(sh->mep_parent) <= 0)
            js_free_shape0(rt, sh->mep_parent);
    }`,
    why: 'a shape frees the parent it holds',
  },
  {
    file: 'quickjs.c',
    at: { line: 'JSShape *sh = (JSShape *)gp;' },
    op: 'after',
    text: '            if (sh->mep_parent) /* mep engine: the parent a shape holds (patches/shapes.ts) */\n                mark_func(rt, &sh->mep_parent->header);',
    why: 'the collector counts the parent reference as held from inside the heap, as it is',
  },
  {
    file: 'quickjs.c',
    at: { line: '} else if (JS_REF_COUNT(sh) != 1) {' },
    op: 'replace',
    text: '        } else if (JS_REF_COUNT(sh) != 1 || sh->prop_count < MEP_SHAPE_CHAIN) { /* mep engine: a small shape is cloned too (patches/shapes.ts) */',
    why: 'objects built alike move through shared shapes instead of each growing its own (GraphQL: add_property and add_shape_property per call)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'js_shape_hash_link(ctx->rt, new_sh);' },
    op: 'after',
    text: '            if (sh->prop_count < MEP_SHAPE_CHAIN) /* mep engine: the clone holds its parent, so the transition stays (patches/shapes.ts) */\n                new_sh->mep_parent = js_dup_shape(sh);',
    why: 'the parent of a small clone stays hashed while the clone lives, for the next object of that layout',
  },
  {
    file: 'quickjs.c',
    at: { line: 'new_sh = find_hashed_shape_prop(ctx->rt, sh, prop, prop_flags);' },
    op: 'replace',
    text: String.raw`        /* mep engine: the last child first, if it is still this shape plus that property (patches/shapes.ts) */
        new_sh = sh->mep_child;
        if (!new_sh || !new_sh->is_hashed || new_sh->prop_count != sh->prop_count + 1 ||
            get_shape_prop(new_sh)[sh->prop_count].atom != prop ||
            get_shape_prop(new_sh)[sh->prop_count].flags != prop_flags)
            new_sh = find_hashed_shape_prop(ctx->rt, sh, prop, prop_flags);`,
    why: 'the transition an object built alike took last is found without hashing the shape and comparing its properties',
  },
  {
    file: 'quickjs.c',
    at: { line: 'return &p->prop[p->shape->prop_count - 1];' },
    op: 'before',
    text: '    if (p->shape->mep_parent == sh) /* mep engine: the clone above is the shape\'s last child (patches/shapes.ts) */\n        sh->mep_child = p->shape;',
    why: 'remember the transition just made (after add_shape_property, which may have moved the clone)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'sh = *psh;', near: 'static no_inline int resize_properties(JSContext *ctx, JSShape **psh,' },
    op: 'after',
    text: '    JSShape *mep_was = sh; /* mep engine: where the shape was, for its parent\'s child link (patches/shapes.ts) */',
    why: 'a shape that moves tells its parent',
  },
  {
    file: 'quickjs.c',
    at: { line: '*psh = sh;', near: 'JS_ThrowOutOfMemory(ctx); /* mep engine: once the shape is listed again */' },
    op: 'after',
    text: '    if (sh->mep_parent && sh->mep_parent->mep_child == mep_was) /* mep engine (patches/shapes.ts) */\n        sh->mep_parent->mep_child = sh;',
    why: 'a child shape moved by its growth stays its parent\'s child',
  },
  {
    file: 'quickjs.c',
    at: { line: 'memcpy(sh, old_sh, sizeof(JSShape));', near: 'static int compact_properties(JSContext *ctx, JSObject *p)' },
    op: 'after',
    text: '    if (sh->mep_parent && sh->mep_parent->mep_child == old_sh) /* mep engine: the child moved (patches/shapes.ts) */\n        sh->mep_parent->mep_child = sh;',
    why: 'a child shape moved by compaction stays its parent\'s child (its link is checked before use: it is no longer hashed)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static void js_free_shape_null(JSRuntime *rt, JSShape *sh)' },
    op: 'before',
    text: String.raw`/* mep engine: called once before a guest's snapshot (glue/guest.c): every shape lets go of its parent, so
   the shapes only the module's set-up passed through are freed there instead of filling the
   snapshot; calls build their transitions again as they go (patches/shapes.ts) */
void JS_MepDropShapeParents(JSRuntime *rt)
{
    struct list_head *el;
    JSShape **parents;
    size_t n = 0, i = 0;

    list_for_each(el, &rt->gc_obj_list) {
        JSGCObjectHeader *gp = list_entry(el, JSGCObjectHeader, link);
        if (JS_GC_TYPE(gp) == JS_GC_OBJ_TYPE_SHAPE && ((JSShape *)gp)->mep_parent)
            n++;
    }
    if (n == 0)
        return;
    parents = js_malloc_rt(rt, sizeof(parents[0]) * n);
    if (!parents)
        return; /* the links stay: only the snapshot is larger */
    list_for_each(el, &rt->gc_obj_list) {
        JSGCObjectHeader *gp = list_entry(el, JSGCObjectHeader, link);
        JSShape *sh = (JSShape *)gp;
        if (JS_GC_TYPE(gp) == JS_GC_OBJ_TYPE_SHAPE && sh->mep_parent) {
            parents[i++] = sh->mep_parent;
            sh->mep_parent = NULL;
        }
    }
    /* the list is walked before any shape is freed: freeing unlinks them from it */
    for (i = 0; i < n; i++) {
        parents[i]->mep_child = NULL;
        js_free_shape(rt, parents[i]);
    }
    js_free_rt(rt, parents);
}
`,
    why: 'the parents kept for transitions are dropped before a guest\'s snapshot: with them the GraphQL guest was 127 KB larger',
  },
];
