/**
 * Edits to JSON.parse: a string without escapes is made at once and, in a document of 4 KiB or
 * more, shared with an earlier one of the same bytes; a key whose shared string is already an atom
 * is that atom; members of the objects it builds are added directly, an array's elements are
 * gathered and stored at once, at its size, and a string value takes its token's string. build/engine/json.test.ts and heap.test.ts check
 * the results against V8's (repeated keys, `__proto__`, index keys, nesting, revivers).
 */
import type { QuickjsPatch } from './types.ts';

const FAST_STRINGS = String.raw`/* mep engine: what one JSON.parse of MEP_JSON_CACHE_MIN_INPUT bytes or more shares while it runs:
   the strings it made last, by a hash of their bytes. An IR repeats its names and keys thousands
   of times; a repeat shares the string (strings cannot change, so sharing is invisible) instead of
   allocating another, and a key's string, once an atom, is that atom at once. */
#define MEP_JSON_STRINGS 512 /* a power of two */
#define MEP_JSON_STRING_MAX 32 /* longer strings rarely repeat */
#define MEP_JSON_CACHE_MIN_INPUT 4096

typedef struct MepJsonSlot {
    JSValue str; /* an all-zero JSValue is the integer 0: an empty slot */
    const uint8_t *text; /* its bytes in the input, which outlives the parse */
    uint32_t len;
} MepJsonSlot;

static MepJsonSlot mep_json_slots[MEP_JSON_STRINGS];
static JSContext *mep_json_slots_ctx; /* the parse using the slots, or NULL */

/* mep engine: the shapes that parse's objects went through. QuickJS turns an object's own shape
   into the next one in place, so each later object of the kind found no shape for its first key,
   cloned one and dropped it again at its second; kept here, the next object finds them all. */
#define MEP_JSON_SHAPES 256
static JSShape *mep_json_shapes[MEP_JSON_SHAPES];
static int mep_json_shape_count;

/* keeps p's shape before prop is added to it, when adding would change it in place */
static void mep_json_keep_shape(JSContext *ctx, JSObject *p, JSAtom prop)
{
    JSShape *sh = p->shape;

    if (mep_json_slots_ctx == ctx && mep_json_shape_count < MEP_JSON_SHAPES && sh->is_hashed &&
        JS_REF_COUNT(sh) == 1 && !find_hashed_shape_prop(ctx->rt, sh, prop, JS_PROP_C_W_E))
        mep_json_shapes[mep_json_shape_count++] = js_dup_shape(sh);
}

/* the string of the n bytes at p (no quote, backslash or control character; well-formed UTF-8
   when utf8, else ASCII) */
#define MEP_JSON_NEW_STRING(ctx, p, n, utf8) \
    ((utf8) ? JS_NewStringLen(ctx, (const char *)(p), n) : js_new_string8_len(ctx, (const char *)(p), n))

/* the string of the n bytes at p (as MEP_JSON_NEW_STRING), shared when the slots hold one of the
   same bytes */
static JSValue mep_json_ascii(JSContext *ctx, const uint8_t *p, uint32_t n, bool utf8)
{
    MepJsonSlot *slot;
    JSValue str;
    uint32_t h, i;

    if (mep_json_slots_ctx != ctx || n > MEP_JSON_STRING_MAX)
        return MEP_JSON_NEW_STRING(ctx, p, n, utf8);
    for (h = n, i = 0; i < n; i++)
        h = h * 31 + p[i];
    slot = &mep_json_slots[(h ^ (h >> 11)) & (MEP_JSON_STRINGS - 1)];
    if (JS_VALUE_GET_TAG(slot->str) == JS_TAG_STRING && slot->len == n && memcmp(slot->text, p, n) == 0)
        return js_dup(slot->str);
    str = MEP_JSON_NEW_STRING(ctx, p, n, utf8);
    if (JS_VALUE_GET_TAG(str) == JS_TAG_STRING) {
        JS_FreeValue(ctx, slot->str);
        slot->str = js_dup(str);
        slot->text = p;
        slot->len = n;
    }
    return str;
}

/* mep engine: a string literal without escapes (nearly every name and key of an IR), in ASCII
   or in well-formed UTF-8, *pp just after its opening quote, made at once: 1 with the token set
   and *pp after the closing quote, 0 for any other literal (json_parse_string reads it, and
   reports what is wrong with it), -1 out of memory */
static int mep_json_fast_string(JSParseState *s, const uint8_t **pp)
{
    const uint8_t *p = *pp, *q = p;
    bool utf8 = false;
    size_t units;
    JSValue str;

    while (q < s->buf_end && *q >= 0x20 && *q < 0x80 && *q != '\"' && *q != '\\')
        q++;
    if (q < s->buf_end && *q >= 0x80) {
        /* on to the closing quote; what json_parse_string would find wrong it reports */
        while (q < s->buf_end && *q >= 0x20 && *q != '\"' && *q != '\\')
            q++;
        if (q >= s->buf_end || *q != '\"' || (utf8_scan((const char *)p, q - p, &units) & UTF8_HAS_ERRORS))
            return 0;
        utf8 = true;
    }
    if (q >= s->buf_end || *q != '\"')
        return 0;
    str = mep_json_ascii(s->ctx, p, q - p, utf8);
    if (JS_IsException(str))
        return -1;
    s->token.val = TOK_STRING;
    s->token.u.str.sep = '\"';
    s->token.u.str.str = str;
    *pp = q + 1;
    return 1;
}

/* mep engine: the atoms of the keys whose shared strings are not atoms themselves: a key that
   names an atom the engine had before ("name", "value", "length"...) is that atom, and its
   string stays a plain string, looked up in the atom table again at each repeat. By the string's
   address, which the entry keeps alive (so no other string takes it) until the parse ends. */
#define MEP_JSON_KEYS 64 /* a power of two */
typedef struct MepJsonKey {
    JSValue str; /* an all-zero JSValue is the integer 0: an empty entry */
    JSAtom atom;
} MepJsonKey;

static MepJsonKey mep_json_keys[MEP_JSON_KEYS];

/* the atom of the key str (a string), a reference taken */
static JSAtom mep_json_key_atom(JSContext *ctx, JSValueConst str)
{
    JSString *p = JS_VALUE_GET_STRING(str);
    MepJsonKey *k;
    JSAtom atom;

    if (p->atom_type == JS_ATOM_TYPE_STRING)
        return JS_DupAtom(ctx, js_get_atom_index(ctx->rt, p));
    if (mep_json_slots_ctx != ctx)
        return JS_ValueToAtom(ctx, str);
    k = &mep_json_keys[((uintptr_t)p >> 4) & (MEP_JSON_KEYS - 1)];
    if (JS_VALUE_GET_TAG(k->str) == JS_TAG_STRING && JS_VALUE_GET_PTR(k->str) == p)
        return JS_DupAtom(ctx, k->atom);
    atom = JS_ValueToAtom(ctx, str);
    if (atom != JS_ATOM_NULL) {
        if (JS_VALUE_GET_TAG(k->str) == JS_TAG_STRING)
            JS_FreeAtom(ctx, k->atom);
        JS_FreeValue(ctx, k->str);
        k->str = js_dup(str);
        k->atom = JS_DupAtom(ctx, atom);
    }
    return atom;
}

/* mep engine: the slots are this parse's (ctx) when it is big enough and no other has them */
static bool mep_json_slots_take(JSContext *ctx, size_t buf_len)
{
    if (mep_json_slots_ctx != NULL || buf_len < MEP_JSON_CACHE_MIN_INPUT)
        return false;
    memset(mep_json_slots, 0, sizeof(mep_json_slots));
    memset(mep_json_keys, 0, sizeof(mep_json_keys));
    mep_json_slots_ctx = ctx;
    return true;
}

static void mep_json_slots_release(JSContext *ctx)
{
    int i;

    for (i = 0; i < MEP_JSON_STRINGS; i++)
        JS_FreeValue(ctx, mep_json_slots[i].str);
    memset(mep_json_slots, 0, sizeof(mep_json_slots));
    for (i = 0; i < MEP_JSON_KEYS; i++) {
        if (JS_VALUE_GET_TAG(mep_json_keys[i].str) == JS_TAG_STRING) {
            JS_FreeAtom(ctx, mep_json_keys[i].atom);
            JS_FreeValue(ctx, mep_json_keys[i].str);
        }
    }
    memset(mep_json_keys, 0, sizeof(mep_json_keys));
    for (i = 0; i < mep_json_shape_count; i++)
        js_free_shape(ctx->rt, mep_json_shapes[i]);
    mep_json_shape_count = 0;
    mep_json_slots_ctx = NULL;
}
`;

export const JSON_PARSE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'static __exception int json_next_token(JSParseState *s)' },
    op: 'before',
    text: FAST_STRINGS,
    why: 'the string maker and cache of the edits below',
  },
  {
    file: 'quickjs.c',
    at: { from: 'if (json_parse_string(s, &p))', to: 'goto fail;', sha256: 'ac9f0dbd8d214829' },
    op: 'replace',
    text: String.raw`        {
            /* mep engine: an ASCII string without escapes is made at once, or shared */
            int mep_r = mep_json_fast_string(s, &p);
            if (mep_r < 0 || (mep_r == 0 && json_parse_string(s, &p)))
                goto fail;
        }`,
    why:
      'let JSON.parse make a string without escapes at once, or share the string of an earlier one with the same bytes: ' +
      'json_parse_string built each in a growable buffer (48 bytes, then grown, then shrunk to fit), and an IR repeats ' +
      'its names and keys thousands of times',
  },
  {
    file: 'quickjs.c',
    at: { line: 'prop_name = JS_ValueToAtom(ctx, s->token.u.str.str);' },
    op: 'replace',
    text: String.raw`                        /* mep engine: a key whose (shared) string is already an atom, or was
                           made one before in this parse, is that atom */
                        prop_name = mep_json_key_atom(ctx, s->token.u.str.str);`,
    why:
      'let JSON.parse find the atom of a key it has seen before without hashing its text again: the string cache hands ' +
      'out the string that the first such key turned into an atom, and the key cache the atom of a string that names an ' +
      'atom the engine had before (an IR\'s "name" and "value": 19,557 look-ups of ~310 instructions in the 1 MB bench IR)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue JS_ParseJSON_internal(JSContext *ctx, const char *buf, size_t buf_len,' },
    op: 'replace',
    text: String.raw`static JSValue mep_parse_json_body(JSContext *ctx, const char *buf, size_t buf_len,
                                   const char *filename, JSONParseRecord *pr);

/* mep engine: JS_ParseJSON_internal with the string cache set up and released around it */
static JSValue JS_ParseJSON_internal(JSContext *ctx, const char *buf, size_t buf_len,
                                     const char *filename, JSONParseRecord *pr)
{
    bool mine = mep_json_slots_take(ctx, buf_len);
    JSValue val = mep_parse_json_body(ctx, buf, buf_len, filename, pr);

    if (mine)
        mep_json_slots_release(ctx);
    return val;
}

static JSValue mep_parse_json_body(JSContext *ctx, const char *buf, size_t buf_len,`,
    why: 'give each JSON.parse of 4 KiB or more the string cache, and let go of what it holds when the parse ends',
  },

  {
    file: 'quickjs.c',
    at: { from: 'ret = JS_DefinePropertyValue(ctx, val, prop_name,', to: 'prop_val, JS_PROP_C_W_E);', near: 'prop_val = json_parse_value(s, pr1);', sha256: '25544d56456a6ec4' },
    op: 'replace',
    text: String.raw`                    {
                        /* mep engine: a new key of the fresh plain object is added directly */
                        JSProperty *mep_pr;
                        JSObject *mep_p = JS_VALUE_GET_OBJ(val);
                        if (find_own_property(&mep_pr, mep_p, prop_name)) {
                            ret = JS_DefinePropertyValue(ctx, val, prop_name, prop_val, JS_PROP_C_W_E);
                        } else if (mep_json_keep_shape(ctx, mep_p, prop_name),
                                   (mep_pr = add_property(ctx, mep_p, prop_name, JS_PROP_C_W_E)) != NULL) {
                            mep_pr->u.value = prop_val;
                            ret = 0;
                        } else {
                            JS_FreeValue(ctx, prop_val);
                            ret = -1;
                        }
                    }`,
    why:
      'let JSON.parse add a member to the object it is building without the generic definition path (exotic objects, ' +
      'setters, non-extensible checks, which a fresh plain object never has); a repeated key still goes the generic way',
  },
  {
    file: 'quickjs.c',
    at: { from: "case '[':", to: 'case TOK_STRING:', near: 'json_parse_error(s, s->token.ptr, "Expected \',\' or \'}\' after property value");', sha256: 'ea638db4801132c2' },
    op: 'replace',
    text: String.raw`    case '[':
        {
            /* mep engine: the elements are gathered first (on the C stack up to eight) and then
               put in the array at once, at its size */
            JSValue small[8], *tab = small, el;
            uint32_t len = 0, room = countof(small);
            JSONParseRecord *pr1 = NULL;
            int pr_size = 0;

            if (json_next_token(s) || JS_IsException(val = JS_NewArray(ctx)))
                goto fail;
            if (pr)
                json_parse_record_init_array(ctx, pr, val);
            if (s->token.val != ']') for (;;) {
                if (pr) {
                    /* a reviver's record of each element, as quickjs-ng keeps it */
                    if (js_resize_array(ctx, (void **)&pr->u.array.elements, sizeof(pr->u.array.elements[0]),
                                        &pr_size, pr->u.array.count + 1))
                        goto mep_array_fail;
                    pr1 = &pr->u.array.elements[pr->u.array.count++];
                    pr1->value = JS_UNDEFINED;
                }
                el = json_parse_value(s, pr1);
                if (JS_IsException(el))
                    goto mep_array_fail;
                if (len == room) {
                    JSValue *grown = room > UINT32_MAX / 2 / sizeof(tab[0]) ? NULL
                                     : tab == small ? js_malloc(ctx, sizeof(tab[0]) * room * 2)
                                     : js_realloc(ctx, tab, sizeof(tab[0]) * room * 2);
                    if (!grown) {
                        JS_FreeValue(ctx, el);
                        goto mep_array_fail;
                    }
                    if (tab == small)
                        memcpy(grown, small, sizeof(small));
                    tab = grown;
                    room *= 2;
                }
                tab[len++] = el;
                if (s->token.val == ']')
                    break;
                if (s->token.val != ',') {
                    json_parse_error(s, s->token.ptr, "Expected ',' or ']' after array element");
                    goto mep_array_fail;
                }
                if (json_next_token(s))
                    goto mep_array_fail;
            }
            if (json_next_token(s) || (len > 0 && expand_fast_array(ctx, JS_VALUE_GET_OBJ(val), len))) {
            mep_array_fail:
                while (len > 0)
                    JS_FreeValue(ctx, tab[--len]);
                if (tab != small)
                    js_free(ctx, tab);
                goto fail;
            }
            if (len > 0) {
                /* a fresh array from JS_NewArray is fast, empty and its length writable */
                JSObject *mep_p = JS_VALUE_GET_OBJ(val);
                memcpy(mep_p->u.array.u.values, tab, sizeof(tab[0]) * len);
                mep_p->u.array.count = len;
                mep_p->prop[0].u.value = js_uint32(len);
            }
            if (tab != small)
                js_free(ctx, tab);
        }
        break;
    case TOK_STRING:`,
    why:
      'let JSON.parse gather an array\'s elements and make its storage once, at its size: each element went through ' +
      'JS_DefinePropertyValueUint32 (an atom for its index, the generic definition path) and the array grew to 1, 2, 3, ' +
      '4, 6... elements, moving each time',
  },
  {
    file: 'quickjs.c',
    at: { line: 'val = js_dup(s->token.u.str.str);' },
    op: 'replace',
    text: String.raw`        /* mep engine: the value takes the token's string (the token no longer holds it) */
        val = s->token.u.str.str;
        s->token.val = TOK_EOF;`,
    why: 'let a string value take its token\'s string instead of a reference that the next token then dropped again',
  },
];
