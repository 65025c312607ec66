/** The C text of the direct JSON writer ({@link ./json-stringify.ts}), ours. */

/** The direct writer, put before JS_JSONStringify. */
export const DIRECT_WRITER = String.raw`/* mep engine: JSON.stringify without a replacer function or a property list (every call the
   runtime and the backends make, indented or not) writes straight into its buffer:
   - a plain object's own enumerable string keys are read from its shape, once, before its
     values are read, as the key list of the generic path is; each value is then read by key;
   - keys and strings are quoted in place, integers written as digits;
   - the objects being written are a list on the C stack for the cycle check;
   - with a gap, each line is indented by the gap once per level.
   Anything else (boxed primitives, exotic objects, a plain object with an index key, which comes
   first in key order) is written by js_json_to_str. */
typedef struct MepJsonLevel {
    JSObject *obj;
    const struct MepJsonLevel *up;
    int depth;
} MepJsonLevel;

/* MEP_JSON_MAX_DEPTH is defined with the JSON.parse edits */

static int mep_json_write(JSContext *ctx, JSONStringifyContext *jsc, JSValueConst holder,
                          JSValue val, const MepJsonLevel *up);

/* appends the gap depth times to b */
static int mep_json_put_indent(StringBuffer *b, const JSString *gap, int depth)
{
    while (depth-- > 0) {
        if (string_buffer_concat(b, gap, 0, gap->len))
            return -1;
    }
    return 0;
}

/* with a gap, a line break and the indentation of depth levels; nothing without one */
static int mep_json_break(JSONStringifyContext *jsc, int depth)
{
    const JSString *gap = JS_VALUE_GET_STRING(jsc->gap);

    if (gap->len == 0)
        return 0;
    if (string_buffer_putc8(jsc->b, '\n') || mep_json_put_indent(jsc->b, gap, depth))
        return -1;
    return 0;
}

/* the indentation of depth levels as a string, for js_json_to_str */
static JSValue mep_json_indent(JSContext *ctx, JSONStringifyContext *jsc, int depth)
{
    const JSString *gap = JS_VALUE_GET_STRING(jsc->gap);
    StringBuffer b_s, *b = &b_s;

    if (gap->len == 0 || depth == 0)
        return JS_DupValue(ctx, jsc->empty);
    if (string_buffer_init(ctx, b, gap->len * depth))
        return JS_EXCEPTION;
    if (mep_json_put_indent(b, gap, depth)) {
        string_buffer_free(b);
        return JS_EXCEPTION;
    }
    return string_buffer_end(b);
}

/* TRUE when neither p nor its prototypes, all plain objects or arrays, have a toJSON property:
   a few look-ups in their shapes instead of a generic property read */
static BOOL mep_json_no_tojson(JSObject *p)
{
    JSProperty *pr;

    for (; p != NULL; p = p->shape->proto) {
        if ((p->class_id != JS_CLASS_OBJECT && p->class_id != JS_CLASS_ARRAY) ||
            find_own_property(&pr, p, JS_ATOM_toJSON))
            return FALSE;
    }
    return TRUE;
}

/* js_json_check without a replacer: the key is made only for a toJSON method to see */
static JSValue mep_json_check(JSContext *ctx, JSValue val, JSAtom atom, int64_t idx)
{
    if (JS_IsObject(val) ? !mep_json_no_tojson(JS_VALUE_GET_OBJ(val)) : JS_IsBigInt(ctx, val)) {
        JSValue f = JS_GetProperty(ctx, val, JS_ATOM_toJSON);
        if (JS_IsException(f))
            goto fail;
        if (JS_IsFunction(ctx, f)) {
            JSValue v, key = atom != JS_ATOM_NULL ? JS_AtomToString(ctx, atom)
                                                  : JS_ToStringFree(ctx, JS_NewInt64(ctx, idx));
            if (JS_IsException(key)) {
                JS_FreeValue(ctx, f);
                goto fail;
            }
            v = JS_CallFree(ctx, f, val, 1, (JSValueConst *)&key);
            JS_FreeValue(ctx, key);
            JS_FreeValue(ctx, val);
            val = v;
            if (JS_IsException(val))
                return val;
        } else {
            JS_FreeValue(ctx, f);
        }
    }
    switch (JS_VALUE_GET_NORM_TAG(val)) {
    case JS_TAG_OBJECT:
        if (JS_IsFunction(ctx, val))
            break;
        /* fall through */
    case JS_TAG_STRING:
    case JS_TAG_INT:
    case JS_TAG_FLOAT64:
#ifdef CONFIG_BIGNUM
    case JS_TAG_BIG_FLOAT:
    case JS_TAG_BIG_INT:
#endif
    case JS_TAG_BOOL:
    case JS_TAG_NULL:
    case JS_TAG_EXCEPTION:
        return val;
    default:
        break;
    }
    JS_FreeValue(ctx, val);
    return JS_UNDEFINED;
 fail:
    JS_FreeValue(ctx, val);
    return JS_EXCEPTION;
}

static int mep_json_write_array(JSContext *ctx, JSONStringifyContext *jsc, JSValueConst obj,
                                const MepJsonLevel *level)
{
    JSObject *p = JS_VALUE_GET_OBJ(obj);
    int64_t i, len;
    JSValue v;

    /* an array's length is its first property */
    if (JS_VALUE_GET_TAG(p->prop[0].u.value) == JS_TAG_INT)
        len = JS_VALUE_GET_INT(p->prop[0].u.value);
    else if (js_get_length64(ctx, &len, obj))
        return -1;
    if (mep_json_putc(jsc->b, '['))
        return -1;
    for (i = 0; i < len; i++) {
        if ((i > 0 && mep_json_putc(jsc->b, ',')) || mep_json_break(jsc, level->depth))
            return -1;
        /* a toJSON method may have changed the array: checked again for each element */
        if (p->fast_array && i < p->u.array.count)
            v = JS_DupValue(ctx, p->u.array.u.values[i]);
        else
            v = JS_GetPropertyInt64(ctx, obj, i);
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
    BOOL has_content = FALSE;

    if (sh->prop_count > countof(local)) {
        keys = js_malloc(ctx, sizeof(keys[0]) * sh->prop_count);
        if (!keys)
            return -1;
    }
    for (i = 0; i < sh->prop_count; i++, prs++) {
        if (prs->atom == JS_ATOM_NULL || !(prs->flags & JS_PROP_ENUMERABLE))
            continue;
        if (JS_AtomIsArrayIndex(ctx, &idx, prs->atom)) {
            ret = 1;
            goto done;
        }
        if (ctx->rt->atom_array[prs->atom]->atom_type == JS_ATOM_TYPE_STRING)
            keys[n++] = JS_DupAtom(ctx, prs->atom);
    }
    if (string_buffer_putc8(jsc->b, '{'))
        goto done;
    for (i = 0; i < n; i++) {
        prs = find_own_property(&pr, p, keys[i]);
        if (prs && (prs->flags & JS_PROP_TMASK) == JS_PROP_NORMAL)
            v = JS_DupValue(ctx, pr->u.value);
        else
            v = JS_GetProperty(ctx, obj, keys[i]);
        v = mep_json_check(ctx, v, keys[i], 0);
        if (JS_IsException(v))
            goto done;
        if (JS_IsUndefined(v))
            continue;
        if ((has_content && mep_json_putc(jsc->b, ',')) || mep_json_break(jsc, level->depth) ||
            mep_json_put_quoted(jsc->b, ctx->rt->atom_array[keys[i]]) || mep_json_putc(jsc->b, ':') ||
            (JS_VALUE_GET_STRING(jsc->gap)->len != 0 && string_buffer_putc8(jsc->b, ' '))) {
            JS_FreeValue(ctx, v);
            goto done;
        }
        if (mep_json_write(ctx, jsc, obj, v, level))
            goto done;
        has_content = TRUE;
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

/* writes val (checked by mep_json_check or js_json_check, and freed here) */
static int mep_json_write(JSContext *ctx, JSONStringifyContext *jsc, JSValueConst holder,
                          JSValue val, const MepJsonLevel *up)
{
    switch (JS_VALUE_GET_NORM_TAG(val)) {
    case JS_TAG_STRING: {
        int ret = mep_json_put_quoted(jsc->b, JS_VALUE_GET_STRING(val));
        JS_FreeValue(ctx, val);
        return ret;
    }
    case JS_TAG_INT: {
        char buf[16], *q = buf + sizeof(buf);
        int32_t n = JS_VALUE_GET_INT(val);
        uint32_t u = n < 0 ? -(uint32_t)n : (uint32_t)n;
        do { *--q = (char)('0' + u % 10); u /= 10; } while (u != 0);
        if (n < 0)
            *--q = '-';
        return string_buffer_write8(jsc->b, (const uint8_t *)q, buf + sizeof(buf) - q);
    }
    case JS_TAG_BOOL:
        return string_buffer_puts8(jsc->b, JS_VALUE_GET_BOOL(val) ? "true" : "false");
    case JS_TAG_NULL:
        return string_buffer_puts8(jsc->b, "null");
    case JS_TAG_OBJECT: {
        JSObject *p = JS_VALUE_GET_OBJ(val);
        const MepJsonLevel *l;
        MepJsonLevel level;
        int ret;

        if (p->class_id != JS_CLASS_OBJECT && p->class_id != JS_CLASS_ARRAY)
            break;
        for (l = up; l != NULL; l = l->up) {
            if (l->obj == p) {
                JS_ThrowTypeError(ctx, "circular reference");
                goto fail;
            }
        }
        level.depth = up != NULL ? up->depth + 1 : 1;
        if (level.depth > MEP_JSON_MAX_DEPTH || js_check_stack_overflow(ctx->rt, 0)) {
            JS_ThrowStackOverflow(ctx);
            goto fail;
        }
        level.obj = p;
        level.up = up;
        ret = p->class_id == JS_CLASS_ARRAY ? mep_json_write_array(ctx, jsc, val, &level)
                                            : mep_json_write_object(ctx, jsc, val, &level);
        if (ret > 0)
            break;
        JS_FreeValue(ctx, val);
        return ret;
    }
    default:
        break;
    }
    {
        /* js_json_to_str indents the members of what it writes by one more gap than indent, and
           counts its depth from here */
        JSValue indent = mep_json_indent(ctx, jsc, up != NULL ? up->depth : 0);
        int ret;
        if (JS_IsException(indent))
            goto fail;
        jsc->mep_depth = up != NULL ? up->depth : 0;
        ret = js_json_to_str(ctx, jsc, holder, val, indent);
        JS_FreeValue(ctx, indent);
        return ret;
    }
 fail:
    JS_FreeValue(ctx, val);
    return -1;
}

`;
