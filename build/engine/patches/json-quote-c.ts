/** The C texts of the quoting edit of JSON.stringify ({@link ./json-stringify.ts}): QuickJS's JS_ToQuotedString, and ours. */

/** QuickJS's JS_ToQuotedString, replaced whole. */
export const QUOTED_STRING_ORIGINAL = String.raw`static JSValue JS_ToQuotedString(JSContext *ctx, JSValueConst val1)
{
    JSValue val;
    JSString *p;
    int i;
    uint32_t c;
    StringBuffer b_s, *b = &b_s;
    char buf[16];

    val = JS_ToStringCheckObject(ctx, val1);
    if (JS_IsException(val))
        return val;
    p = JS_VALUE_GET_STRING(val);

    if (string_buffer_init(ctx, b, p->len + 2))
        goto fail;

    if (string_buffer_putc8(b, '\"'))
        goto fail;
    for(i = 0; i < p->len; ) {
        c = string_getc(p, &i);
        switch(c) {
        case '\t':
            c = 't';
            goto quote;
        case '\r':
            c = 'r';
            goto quote;
        case '\n':
            c = 'n';
            goto quote;
        case '\b':
            c = 'b';
            goto quote;
        case '\f':
            c = 'f';
            goto quote;
        case '\"':
        case '\\':
        quote:
            if (string_buffer_putc8(b, '\\'))
                goto fail;
            if (string_buffer_putc8(b, c))
                goto fail;
            break;
        default:
            if (c < 32 || (c >= 0xd800 && c < 0xe000)) {
                snprintf(buf, sizeof(buf), "\\u%04x", c);
                if (string_buffer_puts8(b, buf))
                    goto fail;
            } else {
                if (string_buffer_putc(b, c))
                    goto fail;
            }
            break;
        }
    }
    if (string_buffer_putc8(b, '\"'))
        goto fail;
    JS_FreeValue(ctx, val);
    return string_buffer_end(b);
 fail:
    JS_FreeValue(ctx, val);
    string_buffer_free(b);
    return JS_EXCEPTION;
}
`;

/** mep_json_put_quoted, the one JSON quoting loop, and JS_ToQuotedString through it. */
export const QUOTED_STRING = String.raw`/* mep engine: string_buffer_putc8 with its common case inline: JSON.stringify writes every
   bracket, comma and colon through it */
static force_inline int mep_json_putc(StringBuffer *b, uint32_t c)
{
    if (likely(b->len < b->size)) {
        if (b->is_wide_char)
            b->str->u.str16[b->len++] = c;
        else
            b->str->u.str8[b->len++] = c;
        return 0;
    }
    return string_buffer_putc8(b, c);
}

/* mep engine: how long each character below 256 is in a JSON string literal: 1 as it is, 2 as a
   short escape (a quote, a backslash, \t \r \n \b \f), 6 as \uXXXX (other control characters) */
static const uint8_t mep_json_len8[256] = {
    6, 6, 6, 6, 6, 6, 6, 6, 2, 2, 2, 6, 2, 2, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
    1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* mep engine: how long c is in a JSON string literal (a lone surrogate is escaped: 6) */
static force_inline int mep_json_char_len(uint32_t c)
{
    return c < 256 ? mep_json_len8[c] : c >= 0xd800 && c < 0xe000 ? 6 : 1;
}

/* mep engine: the escape of c (a quote, a backslash, a control character or a lone surrogate)
   into esc; its length */
static no_inline int mep_json_escape(uint8_t esc[6], uint32_t c)
{
    static const char hex[] = "0123456789abcdef";

    esc[0] = '\\';
    switch (c) {
    case '\"': case '\\': esc[1] = c; return 2;
    case '\t': esc[1] = 't'; return 2;
    case '\r': esc[1] = 'r'; return 2;
    case '\n': esc[1] = 'n'; return 2;
    case '\b': esc[1] = 'b'; return 2;
    case '\f': esc[1] = 'f'; return 2;
    default:
        esc[1] = 'u';
        esc[2] = hex[(c >> 12) & 15];
        esc[3] = hex[(c >> 8) & 15];
        esc[4] = hex[(c >> 4) & 15];
        esc[5] = hex[c & 15];
        return 6;
    }
}

/* p's character at index j, of either width; of a one-byte p */
#define MEP_JSON_CHAR(j) (p->is_wide_char ? p->u.str16[j] : p->u.str8[j])
#define MEP_JSON_CHAR8(j) (p->u.str8[j])

/* The quoting of one chunk, AT(i) .. AT(end - 1), into DST at b->len, which has room for it: each
   character as it is, a surrogate pair as it is (it may end one past end, as the count did),
   with QUOTES a quote or a backslash after a backslash inline (a JSON text inside a string, as a
   response carries its artifacts), anything else escaped by mep_json_escape. Only the wide
   buffer's copy has QUOTES: the guest's size budget (bench/engine.bench.ts) has no room for both. */
#define MEP_JSON_QUOTE_CHUNK(DST, AT, QUOTES)                                                     \
    do {                                                                                        \
        int j, k = b->len;                                                                      \
        for (j = i; j < end; j++) {                                                             \
            uint32_t c = AT(j);                                                                \
            if (likely(mep_json_char_len(c) == 1)) {                                            \
                DST[k++] = c;                                                                   \
            } else if (QUOTES && (c == '\"' || c == '\\')) {                                   \
                DST[k++] = '\\';                                                                \
                DST[k++] = c;                                                                   \
            } else if (c >= 0xd800 && c < 0xdc00 && j + 1 < p->len && AT(j + 1) >= 0xdc00 &&  \
                       AT(j + 1) < 0xe000) {                                                   \
                DST[k++] = c;                                                                   \
                DST[k++] = AT(++j);                                                            \
            } else {                                                                            \
                uint8_t esc[6];                                                                 \
                int m, len = mep_json_escape(esc, c);                                           \
                for (m = 0; m < len; m++)                                                       \
                    DST[k++] = esc[m];                                                          \
            }                                                                                   \
        }                                                                                       \
        b->len = k;                                                                             \
        i = j;                                                                                  \
    } while (0)

/* mep engine: appends p to b as a JSON string literal. JSON.stringify writes keys and strings
   through it straight into its output. A string without escapes that fits is checked as it is
   copied; any other is written in chunks, each given room for its worst case first, so that
   no character costs a call or a check of room. */
static int mep_json_put_quoted(StringBuffer *b, const JSString *p)
{
    int i = 0, n = p->len;

    if (b->size - b->len >= n + 2 && (b->is_wide_char || !p->is_wide_char)) {
        if (b->is_wide_char) {
            uint16_t *d = b->str->u.str16 + b->len;
            if (!p->is_wide_char) {
                for (; i < n && mep_json_len8[p->u.str8[i]] == 1; i++)
                    d[i + 1] = p->u.str8[i];
            } else {
                for (; i < n && mep_json_char_len(p->u.str16[i]) == 1; i++)
                    d[i + 1] = p->u.str16[i];
            }
            d[0] = d[n + 1] = '\"';
        } else {
            uint8_t *d = b->str->u.str8 + b->len;
            for (; i < n && mep_json_len8[p->u.str8[i]] == 1; i++)
                d[i + 1] = p->u.str8[i];
            d[0] = d[n + 1] = '\"';
        }
        if (i == n) {
            /* the quotes were written around it (where an escape stopped the copy they are written over) */
            b->len += n + 2;
            return 0;
        }
        i = 0; /* an escape: start over */
    }
    if (p->is_wide_char && !b->is_wide_char && string_buffer_widen(b, b->size))
        return -1;
    if (mep_json_putc(b, '\"'))
        return -1;
    while (i < n) {
        /* room for the worst case, six units a character; near the longest string, the exact count */
        int j, end = min_int(n, i + 256), need = (end - i) * 6 + 1;
        if (b->len + need > JS_STRING_LEN_MAX) {
            for (need = 0, j = i; j < end; j++) {
                uint32_t c = p->is_wide_char ? p->u.str16[j] : p->u.str8[j];
                int len = mep_json_char_len(c);
                if (len == 6 && c >= 0xd800 && c < 0xdc00 && j + 1 < n && p->u.str16[j + 1] >= 0xdc00 &&
                    p->u.str16[j + 1] < 0xe000) {
                    len = 2;
                    j++;
                }
                need += len;
            }
        }
        if (b->len + need > b->size && string_buffer_realloc(b, b->len + need, 0))
            return -1;
        if (b->is_wide_char)
            MEP_JSON_QUOTE_CHUNK(b->str->u.str16, MEP_JSON_CHAR, 1);
        else
            MEP_JSON_QUOTE_CHUNK(b->str->u.str8, MEP_JSON_CHAR8, 0);
    }
    return mep_json_putc(b, '\"');
}

static JSValue JS_ToQuotedString(JSContext *ctx, JSValueConst val1)
{
    JSValue val;
    JSString *p;
    StringBuffer b_s, *b = &b_s;

    val = JS_ToStringCheckObject(ctx, val1);
    if (JS_IsException(val))
        return val;
    p = JS_VALUE_GET_STRING(val);
    if (string_buffer_init(ctx, b, p->len + 2) || mep_json_put_quoted(b, p)) {
        string_buffer_free(b);
        JS_FreeValue(ctx, val);
        return JS_EXCEPTION;
    }
    JS_FreeValue(ctx, val);
    return string_buffer_end(b);
}
`;
