/** The C text of the direct JSON writer ({@link ./json-stringify.ts}), ours, put before JS_JSONStringify. */

export const DIRECT_WRITER = String.raw`/* mep engine: JSON.stringify without a replacer function or a property list (every call the
   runtime and the backends make, indented or not) writes straight into its buffer:
   - a plain object's own enumerable string keys are read from its shape, once, before its
     values are read, as the key list of the generic path is; each value is then read by key;
   - keys and strings are quoted in place (mep_json_put_quoted), integers written as digits;
   - the objects being written are marked (JSObject.tmp_mark, which only JS_WriteObject uses
     otherwise, and it runs no JS that could reach here) for the cycle check, one test per
     object instead of a walk up the levels; a JSON.stringify called from a toJSON or a getter
     while another writes (its own marks would be the other's) checks against its list of levels
     on the C stack instead;
   - with a gap, each line is indented by the gap once per level.
   Anything else (numbers other than integers, ropes, boxed primitives, exotic objects, a plain
   object with an index key, which comes first in key order) is written by js_json_to_str, which
   counts its depth on from mep_json_depth. */
typedef struct MepJsonLevel {
    JSObject *obj;
    const struct MepJsonLevel *up;
    int depth; /* for the indentation: 1 inside the outermost object */
    bool marks; /* this write marks its objects (tmp_mark) */
} MepJsonLevel;

/* a direct write that marks its objects is under way */
static bool mep_json_marking;

static int mep_json_write(JSContext *ctx, JSONStringifyContext *jsc, JSValueConst holder,
                          JSValue val, const MepJsonLevel *up);

/* a line break and MEP_JSON_LINE_LEVELS levels of the last one-byte gap (at most 10 characters,
   as JSON.stringify cuts it), for mep_json_break_gap; one engine thread, as for mep_json_depth */
#define MEP_JSON_LINE_LEVELS 64
static uint8_t mep_json_line[1 + 10 * MEP_JSON_LINE_LEVELS];
static uint8_t mep_json_line_gap[10];
static int mep_json_line_gap_len = -1;
/* the gap whose line mep_json_line holds, by address: forgotten at the start of every direct
   write (a string freed since could be another at the same address), set by mep_json_break_gap;
   while a write runs its gap is alive, so an equal address is that gap */
static JSString *mep_json_line_for;

/* with a gap, a line break and the indentation of depth levels: one write of a prepared line
   start for a one-byte gap (a level at a time, each a call, was a fifth of writing an indented
   document: its lines are mostly indentation) */
static no_inline int mep_json_break_gap(JSONStringifyContext *jsc, int depth)
{
    JSString *gap = JS_VALUE_GET_STRING(jsc->gap);

    if (!gap->is_wide_char && gap->len <= 10 && depth <= MEP_JSON_LINE_LEVELS) {
        const uint8_t *g = str8(gap);
        int len = gap->len, i;
        if (len != mep_json_line_gap_len || memcmp(g, mep_json_line_gap, len) != 0) {
            memcpy(mep_json_line_gap, g, len);
            mep_json_line_gap_len = len;
            mep_json_line[0] = '\n';
            for (i = 0; i < MEP_JSON_LINE_LEVELS; i++)
                memcpy(mep_json_line + 1 + i * len, g, len);
        }
        mep_json_line_for = gap;
        return string_buffer_write8(jsc->b, mep_json_line, 1 + depth * len);
    }
    if (mep_json_putc(jsc->b, '\n'))
        return -1;
    while (depth-- > 0) {
        if (string_buffer_concat(jsc->b, gap, 0, gap->len))
            return -1;
    }
    return 0;
}

/* with a gap, a line break and the indentation of depth levels; nothing without one (a test
   inline: the writer asks before every member and element). The prepared line of this write's
   gap is copied inline when it fits (a call that compared the gap again, then a generic write,
   cost ≈ 160 instructions a line) */
static inline int mep_json_break(JSONStringifyContext *jsc, int depth)
{
    JSString *gap = JS_VALUE_GET_STRING(jsc->gap);
    StringBuffer *b = jsc->b;

    if (gap->len == 0)
        return 0;
    if (gap == mep_json_line_for && depth <= MEP_JSON_LINE_LEVELS && !b->is_wide_char) {
        int n = 1 + depth * gap->len;
        if (b->len + n <= b->size) {
            memcpy(str8(b->str) + b->len, mep_json_line, n);
            b->len += n;
            return 0;
        }
    }
    return mep_json_break_gap(jsc, depth);
}

/* the indentation of depth levels as a string, for js_json_to_str */
static JSValue mep_json_indent(JSContext *ctx, JSONStringifyContext *jsc, int depth)
{
    JSString *gap = JS_VALUE_GET_STRING(jsc->gap);
    StringBuffer b_s, *b = &b_s;

    if (gap->len == 0 || depth == 0)
        return js_dup(jsc->empty);
    if (string_buffer_init(ctx, b, gap->len * depth))
        return JS_EXCEPTION;
    while (depth-- > 0) {
        if (string_buffer_concat(b, gap, 0, gap->len)) {
            string_buffer_free(b);
            return JS_EXCEPTION;
        }
    }
    return string_buffer_end(b);
}

/* the prototypes (one for arrays, one for other objects) whose chains up to null the direct
   writer found free of toJSON and of anything but plain objects and arrays: an object there
   needs one look-up of its own shape, not one per prototype (two of the three of an array).
   Forgotten at the start of every direct write and after anything it calls that may run JS (a
   getter, a toJSON method, js_json_to_str with its Proxy traps), which could give a prototype a
   toJSON or another prototype; nothing else changes a shape or a prototype meanwhile, and the
   values being written keep those prototypes alive. One engine thread, as for mep_json_depth. */
static JSObject *mep_json_clean[2];
#define MEP_JSON_FORGET_CLEAN() (mep_json_clean[0] = mep_json_clean[1] = NULL)

/* true when neither p nor its prototypes, all plain objects or arrays, have a toJSON property:
   a few look-ups in their shapes instead of a generic property read */
/* true when p is a plain object or an array without a toJSON property of its own */
static inline bool mep_json_plain_own(JSObject *p)
{
    JSProperty *pr;

    return (p->class_id == JS_CLASS_OBJECT || p->class_id == JS_CLASS_ARRAY) &&
           !find_own_property(&pr, p, JS_ATOM_toJSON);
}

static bool mep_json_no_tojson(JSObject *p)
{
    JSObject *proto, *q;

    if (!mep_json_plain_own(p))
        return false;
    proto = p->shape->proto;
    if (proto == NULL || proto == mep_json_clean[0] || proto == mep_json_clean[1])
        return true;
    for (q = proto; q != NULL; q = q->shape->proto) {
        if (!mep_json_plain_own(q))
            return false;
    }
    mep_json_clean[p->class_id == JS_CLASS_ARRAY] = proto;
    return true;
}

/* js_json_check without a replacer: the key (atom, or the index idx when atom is JS_ATOM_NULL)
   is made only for a toJSON method to see; val is taken, the checked value returned */
static no_inline JSValue mep_json_check_value(JSContext *ctx, JSValue val, JSAtom atom, int64_t idx)
{
    if (JS_IsObject(val) ? !mep_json_no_tojson(JS_VALUE_GET_OBJ(val)) : JS_IsBigInt(val)) {
        JSValue f = JS_GetProperty(ctx, val, JS_ATOM_toJSON);
        MEP_JSON_FORGET_CLEAN(); /* a getter of toJSON, or toJSON, may have run */
        if (JS_IsException(f)) {
            JS_FreeValue(ctx, val);
            return JS_EXCEPTION;
        }
        if (JS_IsFunction(ctx, f)) {
            JSValue v, key = atom != JS_ATOM_NULL ? JS_AtomToString(ctx, atom)
                                                  : JS_ToStringFree(ctx, js_int64(idx));
            if (JS_IsException(key)) {
                JS_FreeValue(ctx, f);
                JS_FreeValue(ctx, val);
                return JS_EXCEPTION;
            }
            v = JS_CallFree(ctx, f, val, 1, vc(&key));
            MEP_JSON_FORGET_CLEAN();
            JS_FreeValue(ctx, key);
            JS_FreeValue(ctx, val);
            if (JS_IsException(v))
                return v;
            val = v;
        } else {
            JS_FreeValue(ctx, f);
        }
    }
    {
        /* what JSON writes, as js_json_check decides it (an exception passes through) */
        int tag = JS_VALUE_GET_NORM_TAG(val);
        if (tag == JS_TAG_OBJECT ? !JS_IsFunction(ctx, val)
                                 : tag == JS_TAG_STRING || tag == JS_TAG_STRING_ROPE || tag == JS_TAG_INT || tag == JS_TAG_FLOAT64 ||
                                   tag == JS_TAG_BOOL || tag == JS_TAG_NULL || tag == JS_TAG_SHORT_BIG_INT ||
                                   tag == JS_TAG_BIG_INT || tag == JS_TAG_EXCEPTION)
            return val;
    }
    JS_FreeValue(ctx, val);
    return JS_UNDEFINED;
}

/* mep_json_check_value with a string, an integer, a boolean or null passed through inline (half
   the values of an IR are strings) */
static inline JSValue mep_json_check(JSContext *ctx, JSValue val, JSAtom atom, int64_t idx)
{
    int tag = JS_VALUE_GET_TAG(val);
    if (tag == JS_TAG_STRING || tag == JS_TAG_INT || tag == JS_TAG_BOOL || tag == JS_TAG_NULL)
        return val;
    return mep_json_check_value(ctx, val, atom, idx);
}

static int mep_json_write_array(JSContext *ctx, JSONStringifyContext *jsc, JSValueConst obj,
                                const MepJsonLevel *level)
{
    JSObject *p = JS_VALUE_GET_OBJ(obj);
    int64_t i, len;
    JSValue v;

    /* an array's length is its first property */
    if (JS_VALUE_GET_TAG(p->prop[0].u.value) == JS_TAG_INT) {
        len = JS_VALUE_GET_INT(p->prop[0].u.value);
    } else {
        MEP_JSON_FORGET_CLEAN(); /* as if reading the length could run JS */
        if (js_get_length64(ctx, &len, obj))
            return -1;
    }
    if (mep_json_putc(jsc->b, '['))
        return -1;
    for (i = 0; i < len; i++) {
        if ((i > 0 && mep_json_putc(jsc->b, ',')) || mep_json_break(jsc, level->depth))
            return -1;
        /* a toJSON method may have changed the array: looked at again for each element */
        if (p->fast_array && i < p->u.array.count) {
            v = js_dup(p->u.array.u.values[i]);
        } else {
            v = JS_GetPropertyInt64(ctx, obj, i);
            MEP_JSON_FORGET_CLEAN(); /* a getter may have run */
        }
        v = mep_json_check(ctx, v, JS_ATOM_NULL, i);
        if (JS_IsException(v))
            return -1;
        if (mep_json_write(ctx, jsc, obj, JS_IsUndefined(v) ? JS_NULL : v, level))
            return -1;
    }
    if (len > 0 && mep_json_break(jsc, level->depth - 1))
        return -1;
    return mep_json_putc(jsc->b, ']');
}

/* 1 when the object has an index key (the generic path writes it), else 0 or -1 */
static int mep_json_write_object(JSContext *ctx, JSONStringifyContext *jsc, JSValueConst obj,
                                 const MepJsonLevel *level)
{
    JSObject *p = JS_VALUE_GET_OBJ(obj);
    JSShape *sh = p->shape;
    JSShapeProperty *prs = get_shape_prop(sh);
    JSAtom local[16], *keys = local;
    JSProperty *pr;
    JSValue v;
    uint32_t idx;
    int i, n = 0, ret = -1;
    bool has_content = false;

    if (sh->prop_count > countof(local)) {
        keys = js_malloc(ctx, sizeof(keys[0]) * sh->prop_count);
        if (!keys)
            return -1;
    }
    for (i = 0; i < sh->prop_count; i++, prs++) {
        JSAtomStruct *as;
        if (prs->atom == JS_ATOM_NULL || !(prs->flags & JS_PROP_ENUMERABLE))
            continue;
        if (__JS_AtomIsTaggedInt(prs->atom)) {
            ret = 1;
            goto done;
        }
        as = ctx->rt->atom_array[prs->atom];
        if (as->atom_type != JS_ATOM_TYPE_STRING)
            continue;
        /* an index key above the tagged integers is a string of digits: only a key starting with
           one is asked (JS_AtomIsArrayIndex's parse was 72 instructions a key) */
        if (as->len > 0 && string_get(as, 0) >= '0' && string_get(as, 0) <= '9' &&
            JS_AtomIsArrayIndex(ctx, &idx, prs->atom)) {
            ret = 1;
            goto done;
        }
        keys[n++] = JS_DupAtom(ctx, prs->atom);
    }
    if (mep_json_putc(jsc->b, '{'))
        goto done;
    for (i = 0; i < n; i++) {
        prs = find_own_property(&pr, p, keys[i]);
        if (prs && (prs->flags & JS_PROP_TMASK) == JS_PROP_NORMAL) {
            v = js_dup(pr->u.value);
        } else {
            v = JS_GetProperty(ctx, obj, keys[i]);
            MEP_JSON_FORGET_CLEAN(); /* a getter may have run */
        }
        v = mep_json_check(ctx, v, keys[i], 0);
        if (JS_IsException(v))
            goto done;
        if (JS_IsUndefined(v))
            continue;
        if ((has_content && mep_json_putc(jsc->b, ',')) || mep_json_break(jsc, level->depth) ||
            mep_json_put_quoted(jsc->b, ctx->rt->atom_array[keys[i]]) || mep_json_putc(jsc->b, ':') ||
            (JS_VALUE_GET_STRING(jsc->gap)->len != 0 && mep_json_putc(jsc->b, ' '))) {
            JS_FreeValue(ctx, v);
            goto done;
        }
        if (mep_json_write(ctx, jsc, obj, v, level))
            goto done;
        has_content = true;
    }
    if (has_content && mep_json_break(jsc, level->depth - 1))
        goto done;
    ret = mep_json_putc(jsc->b, '}');
 done:
    for (i = 0; i < n; i++)
        JS_FreeAtom(ctx, keys[i]);
    if (keys != local)
        js_free(ctx, keys);
    return ret;
}

/* writes val (checked by mep_json_check or js_json_check; taken) */
static int mep_json_write(JSContext *ctx, JSONStringifyContext *jsc, JSValueConst holder,
                          JSValue val, const MepJsonLevel *up)
{
    if (up == NULL) {
        MEP_JSON_FORGET_CLEAN(); /* a new write: JS ran since the last */
        mep_json_line_for = NULL;
    }
    switch (JS_VALUE_GET_NORM_TAG(val)) {
    case JS_TAG_STRING: {
        int ret = mep_json_put_quoted(jsc->b, JS_VALUE_GET_STRING(val));
        JS_FreeValue(ctx, val);
        return ret;
    }
    case JS_TAG_INT: {
        char buf[16];
        return string_buffer_write8(jsc->b, (const uint8_t *)buf, i32toa(buf, JS_VALUE_GET_INT(val)));
    }
    case JS_TAG_BOOL:
        return string_buffer_puts8(jsc->b, JS_VALUE_GET_BOOL(val) ? "true" : "false");
    case JS_TAG_NULL:
        return string_buffer_puts8(jsc->b, "null");
    case JS_TAG_OBJECT: {
        JSObject *p = JS_VALUE_GET_OBJ(val);
        const MepJsonLevel *l;
        MepJsonLevel level;
        bool cyclic;
        int ret;

        if (p->class_id != JS_CLASS_OBJECT && p->class_id != JS_CLASS_ARRAY)
            break;
        level.marks = up != NULL ? up->marks : !mep_json_marking;
        if (level.marks) {
            cyclic = p->tmp_mark;
        } else {
            for (l = up; l != NULL && l->obj != p; l = l->up)
                continue;
            cyclic = l != NULL;
        }
        if (cyclic) {
            JS_ThrowTypeError(ctx, "circular reference");
            goto fail;
        }
        if (mep_json_depth >= MEP_JSON_MAX_DEPTH || js_check_stack_overflow(ctx->rt, 0)) {
            JS_ThrowStackOverflow(ctx);
            goto fail;
        }
        level.obj = p;
        level.up = up;
        level.depth = up != NULL ? up->depth + 1 : 1;
        mep_json_depth++;
        if (level.marks)
            p->tmp_mark = mep_json_marking = true;
        ret = p->class_id == JS_CLASS_ARRAY ? mep_json_write_array(ctx, jsc, val, &level)
                                            : mep_json_write_object(ctx, jsc, val, &level);
        if (level.marks) {
            p->tmp_mark = false;
            if (up == NULL)
                mep_json_marking = false;
        }
        mep_json_depth--;
        if (ret > 0)
            break;
        JS_FreeValue(ctx, val);
        return ret;
    }
    default:
        break;
    }
    {
        /* js_json_to_str indents the members of what it writes by one more gap than indent */
        JSValue indent = mep_json_indent(ctx, jsc, up != NULL ? up->depth : 0);
        int ret;
        if (JS_IsException(indent))
            goto fail;
        ret = js_json_to_str(ctx, jsc, holder, val, indent);
        MEP_JSON_FORGET_CLEAN(); /* toJSON, getters or Proxy traps may have run */
        JS_FreeValue(ctx, indent);
        return ret;
    }
 fail:
    JS_FreeValue(ctx, val);
    return -1;
}
`;
