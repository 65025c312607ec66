/**
 * Edits to the memory an object takes (issue 32: the 3,000-type GraphQL run held 2.79 M objects,
 * 1.96 M of them plain, each 40 bytes in wasm32 plus the 8-byte block header, and a property array
 * beside it).
 *
 * - A plain object (class JS_CLASS_OBJECT: literals, `new C()` of a class, `Object.create`) has no
 *   use for the union `u` at the end of JSObject (function, array, opaque, boxed-value fields):
 *   its block stops where `u` starts, 24 bytes instead of 40 in wasm32 (48 instead of 72 native).
 *   Nothing reads or writes `u` of a plain object but the lines edited here.
 * - Each object holds its property values in an array of its own, as many slots as its shape's
 *   prop_size; an object gaining a property past that grows the shape (and its array) by half.
 *   Object literals and most objects of author code gain their properties one by one and then
 *   stop, so the half they grew by last stayed empty for the object's life: small shapes now grow
 *   by one slot.
 */
import type { QuickjsPatch } from './types.ts';

const NEW_OBJECT = 'static JSValue JS_NewObjectFromShape(JSContext *ctx, JSShape *sh, JSClassID class_id,';

export const OBJECT_SIZE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'p = js_malloc(ctx, sizeof(JSObject));', near: NEW_OBJECT },
    op: 'replace',
    text: String.raw`    /* mep engine: a plain object's block ends where u starts */
    p = js_malloc(ctx, class_id == JS_CLASS_OBJECT ? offsetof(JSObject, u) : sizeof(JSObject));`,
    why: 'a plain object without the union u it never uses (see the file\'s comment)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'p->u.opaque = NULL;', near: NEW_OBJECT },
    op: 'replace',
    text: '    if (class_id != JS_CLASS_OBJECT) /* mep engine: a plain object has no u */\n        p->u.opaque = NULL;',
    why: 'a new plain object\'s block has no u to clear',
  },
  {
    file: 'quickjs.c',
    at: { from: 'p->class_id = 0;', to: 'p->u.func.home_object = NULL;', near: 'static void free_object(JSRuntime *rt, JSObject *p)', sha256: '859894fbd53d6234' },
    op: 'replace',
    text: String.raw`    /* fail safe; mep engine: a plain object has no u */
    if (p->class_id != JS_CLASS_OBJECT)
        memset(&p->u, 0, sizeof(p->u));
    p->class_id = 0;`,
    why: 'a freed plain object\'s block has no u to clear (the others get all of u cleared, not three of its fields)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'return p->u.opaque;', near: 'void *JS_GetAnyOpaque(JSValueConst obj, JSClassID *class_id)' },
    op: 'replace',
    text: '    return p->class_id == JS_CLASS_OBJECT ? NULL : p->u.opaque; /* mep engine: a plain object has no u */',
    why: 'the opaque of a plain object is NULL, not what lies past its block',
  },
  {
    file: 'quickjs.c',
    at: { line: 'if (p->u.opaque) {', near: '/* XXX: class definition should have an opaque block size */' },
    op: 'replace',
    text: '            if (p->class_id != JS_CLASS_OBJECT && p->u.opaque) { /* mep engine: a plain object has no u */',
    why: 'JS_ComputeMemoryUsage counts no opaque for a plain object, rather than reading past its block',
  },
  {
    file: 'quickjs.c',
    at: { line: 'assert(p->class_id < JS_CLASS_INIT_COUNT);', near: 'static void JS_SetOpaqueInternal(JSValueConst obj, void *opaque)' },
    op: 'after',
    text: '    assert(p->class_id != JS_CLASS_OBJECT); /* mep engine: a plain object has no u */',
    why: 'an internal opaque set on a plain object would write past its block: stop there instead',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static no_inline int resize_properties(JSContext *ctx, JSShape **psh,' },
    op: 'before',
    text: String.raw`/* mep engine: shapes of fewer slots than this grow one slot at a time (resize_properties) */
#define MEP_EXACT_PROPS 16
`,
    why: 'where exact growth stops: past it an object that keeps gaining properties grows by half, as before',
  },
  {
    file: 'quickjs.c',
    at: { line: 'new_size = max_int(count, sh->prop_size * 3 / 2);', near: 'static no_inline int resize_properties(JSContext *ctx, JSShape **psh,' },
    op: 'replace',
    text: String.raw`    /* mep engine: a small shape grows to exactly what it needs, a large one by half */
    new_size = sh->prop_size < MEP_EXACT_PROPS ? count : max_int(count, sh->prop_size * 3 / 2);`,
    why: 'a small object\'s property array without the empty half its last growth added (see the file\'s comment)',
  },
];
