/** The C texts of the JSON.parse edits ({@link ./json-parse.ts}): QuickJS's where an edit replaces it whole, and ours. */
/** QuickJS's JSON.parse of an array, replaced whole. */
export const ARRAY_CASE_ORIGINAL = String.raw`    case '[':
        {
            JSValue el;
            uint32_t idx;

            if (json_next_token(s))
                goto fail;
            val = JS_NewArray(ctx);
            if (JS_IsException(val))
                goto fail;
            if (s->token.val != ']') {
                idx = 0;
                for(;;) {
                    el = json_parse_value(s);
                    if (JS_IsException(el))
                        goto fail;
                    ret = JS_DefinePropertyValueUint32(ctx, val, idx, el, JS_PROP_C_W_E);
                    if (ret < 0)
                        goto fail;
                    if (s->token.val != ',')
                        break;
                    if (json_next_token(s))
                        goto fail;
                    idx++;
                    if (s->ext_json && s->token.val == ']')
                        break;
                }
            }
            if (json_parse_expect(s, ']'))
                goto fail;
        }
        break;
`;

/** Ours: the elements gathered on the C stack (a heap block past eight), then one array. */
export const ARRAY_CASE = String.raw`    case '[':
        {
            /* mep engine: the elements are gathered first and the array is made at its size;
               appending grew it to 1, 2, 3, 4, 6... elements, moving it each time */
            JSValue small[8], *tab = small, el;
            uint32_t len = 0, size = countof(small);

            if (json_next_token(s))
                goto fail;
            if (s->token.val != ']') {
                for(;;) {
                    el = json_parse_value(s);
                    if (JS_IsException(el))
                        goto array_fail;
                    if (len == size) {
                        JSValue *grown = NULL;
                        if (size <= SIZE_MAX / sizeof(tab[0]) / 2)
                            grown = tab == small ? js_malloc(ctx, sizeof(tab[0]) * size * 2)
                                                 : js_realloc(ctx, tab, sizeof(tab[0]) * size * 2);
                        if (!grown) {
                            JS_FreeValue(ctx, el);
                            goto array_fail;
                        }
                        if (tab == small)
                            memcpy(grown, small, sizeof(small));
                        tab = grown;
                        size *= 2;
                    }
                    tab[len++] = el;
                    if (s->token.val != ',')
                        break;
                    if (json_next_token(s))
                        goto array_fail;
                    if (s->ext_json && s->token.val == ']')
                        break;
                }
            }
            if (json_parse_expect(s, ']'))
                goto array_fail;
            val = mep_new_array_from(ctx, tab, len);
            if (tab != small)
                js_free(ctx, tab);
            if (JS_IsException(val))
                goto fail;
            break;
        array_fail:
            while (len > 0)
                JS_FreeValue(ctx, tab[--len]);
            if (tab != small)
                js_free(ctx, tab);
            goto fail;
        }
`;

/** Ours, before json_parse_value: its depth count and the array maker. */
export const NEW_ARRAY_FROM = String.raw`/* mep engine: JSON nested deeper than this is a stack overflow, in JSON.parse and JSON.stringify:
   each level is a few wasm frames, which use little of the guest's own stack but much of the
   host's, so checking the guest's stack alone let the host's overflow first and trap the call */
#define MEP_JSON_MAX_DEPTH 2000

/* mep engine: a new fast array of the len values in tab, which it takes (and frees if it fails) */
static JSValue mep_new_array_from(JSContext *ctx, JSValue *tab, uint32_t len)
{
    JSValue arr = JS_NewArray(ctx);
    JSObject *p;

    if (JS_IsException(arr))
        goto fail;
    if (len > 0) {
        p = JS_VALUE_GET_OBJ(arr);
        if (expand_fast_array(ctx, p, len)) {
            JS_FreeValue(ctx, arr);
            goto fail;
        }
        memcpy(p->u.array.u.values, tab, sizeof(tab[0]) * len);
        p->u.array.count = len;
        p->prop[0].u.value = JS_NewUint32(ctx, len);
    }
    return arr;
 fail:
    while (len > 0)
        JS_FreeValue(ctx, tab[--len]);
    return JS_EXCEPTION;
}

static JSValue mep_json_parse_value(JSParseState *s);

/* mep engine: json_parse_value with the nesting counted */
static JSValue json_parse_value(JSParseState *s)
{
    JSValue val;

    if (s->mep_json_depth >= MEP_JSON_MAX_DEPTH) {
        js_parse_error(s, "stack overflow");
        return JS_EXCEPTION;
    }
    s->mep_json_depth++;
    val = mep_json_parse_value(s);
    s->mep_json_depth--;
    return val;
}

`;

/** Ours, after JSParseState: what one JSON.parse shares while it runs. */
export const JSON_CACHE = String.raw`
/* mep engine: what one JSON.parse keeps while it runs (JS_ParseJSON2 makes and frees it):
   - the strings it made last, by a hash of their text: an IR repeats its names and keys
     thousands of times, and a repeat shares the string instead of allocating another;
   - the shapes its objects went through: QuickJS turns an object's own shape into the next one
     in place, so each later object of the kind found no shape for its first key, cloned one and
     dropped it again at its second key */
#define MEP_JSON_STRINGS 512 /* a power of two */
#define MEP_JSON_STRING_MAX 32 /* longer strings rarely repeat */
#define MEP_JSON_SHAPES 256
#define MEP_JSON_CACHE_MIN_INPUT 4096 /* bytes of input below which JSON.parse goes without */

typedef struct MepJsonString {
    JSValue str;
    const uint8_t *text; /* where its text is in the input, which outlives the parse */
    size_t len;
} MepJsonString;

typedef struct MepJsonCache {
    MepJsonString strings[MEP_JSON_STRINGS];
    JSShape *shapes[MEP_JSON_SHAPES];
    int shape_count;
} MepJsonCache;

/* every slot empty: an all-zero JSValue is the integer 0, never a string */
static void mep_json_cache_init(MepJsonCache *c)
{
    memset(c, 0, sizeof(*c));
}

static void mep_json_cache_free(JSContext *ctx, MepJsonCache *c)
{
    int i;

    for (i = 0; i < MEP_JSON_STRINGS; i++)
        JS_FreeValue(ctx, c->strings[i].str);
    for (i = 0; i < c->shape_count; i++)
        js_free_shape(ctx->rt, c->shapes[i]);
}

/* the string of the n bytes of UTF-8 at p (no quote, backslash or control character among
   them), decoded as js_parse_string decodes; JS_UNINITIALIZED when a sequence is not one
   js_parse_string accepts (it then reads the string again and reports the error) */
static JSValue mep_json_string_utf8(JSContext *ctx, const uint8_t *p, size_t n)
{
    const uint8_t *q, *end = p + n, *next;
    uint32_t c, units = 0, wide = 0;
    JSString *str;

    for (q = p; q < end; units++) {
        if (*q < 0x80) {
            q++;
            continue;
        }
        c = unicode_from_utf8(q, end - q, &next);
        if (c > 0x10FFFF)
            return JS_UNINITIALIZED;
        units += c >= 0x10000;
        wide |= c >= 0x100;
        q = next;
    }
    str = js_alloc_string(ctx, units, wide);
    if (!str)
        return JS_EXCEPTION;
    for (q = p, units = 0; q < end;) {
        c = *q < 0x80 ? *q++ : unicode_from_utf8(q, end - q, &q);
        if (!wide) {
            str->u.str8[units++] = c;
        } else if (c < 0x10000) {
            str->u.str16[units++] = c;
        } else {
            c -= 0x10000;
            str->u.str16[units++] = 0xd800 | (c >> 10);
            str->u.str16[units++] = 0xdc00 | (c & 0x3ff);
        }
    }
    if (!wide)
        str->u.str8[units] = '\0';
    return JS_MKPTR(JS_TAG_STRING, str);
}

/* the string of the n bytes at p, a string literal's text without escapes (ascii: all below
   0x80): the one made for an earlier literal of the same text if the cache has it (strings
   cannot change, so sharing one is invisible); JS_UNINITIALIZED as mep_json_string_utf8 */
static JSValue mep_json_string(JSParseState *s, const uint8_t *p, size_t n, BOOL ascii)
{
    MepJsonCache *c = s->mep_json_cache;
    MepJsonString *slot;
    JSValue str;
    uint32_t h;
    size_t i;

    if (c == NULL || n > MEP_JSON_STRING_MAX)
        return ascii ? js_new_string8(s->ctx, p, n) : mep_json_string_utf8(s->ctx, p, n);
    h = (uint32_t)n;
    for (i = 0; i < n; i++)
        h = h * 31 + p[i];
    slot = &c->strings[(h ^ (h >> 11)) & (MEP_JSON_STRINGS - 1)];
    if (JS_VALUE_GET_TAG(slot->str) == JS_TAG_STRING && slot->len == n && memcmp(slot->text, p, n) == 0)
        return JS_DupValue(s->ctx, slot->str);
    str = ascii ? js_new_string8(s->ctx, p, n) : mep_json_string_utf8(s->ctx, p, n);
    if (JS_VALUE_GET_TAG(str) == JS_TAG_STRING) {
        JS_FreeValue(s->ctx, slot->str);
        slot->str = JS_DupValue(s->ctx, str);
        slot->text = p;
        slot->len = n;
    }
    return str;
}

/* mep_add_data_property for JSON.parse: a shape of this object's own that has no next shape for
   prop yet is kept (add_property then clones it), so that the next object of its kind finds it */
static int mep_json_add_member(JSParseState *s, JSObject *p, JSAtom prop, JSValue val)
{
    MepJsonCache *c = s->mep_json_cache;
    JSShape *sh = p->shape;

    if (c != NULL && sh->is_hashed && sh->header.ref_count == 1 && c->shape_count < MEP_JSON_SHAPES &&
        !find_hashed_shape_prop(s->ctx->rt, sh, prop, JS_PROP_C_W_E))
        c->shapes[c->shape_count++] = js_dup_shape(sh);
    return mep_add_data_property(s->ctx, p, prop, val);
}
`;
