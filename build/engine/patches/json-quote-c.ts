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
export const QUOTED_STRING = String.raw`/* mep engine: appends the escape of c, a character JSON cannot hold as it is, to b */
static int mep_json_put_escape(StringBuffer *b, uint32_t c)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t esc[6] = { '\\', 'u', hex[(c >> 12) & 15], hex[(c >> 8) & 15], hex[(c >> 4) & 15], hex[c & 15] };
    uint8_t short_esc[2] = { '\\', 0 };

    switch (c) {
    case '\t': short_esc[1] = 't'; break;
    case '\r': short_esc[1] = 'r'; break;
    case '\n': short_esc[1] = 'n'; break;
    case '\b': short_esc[1] = 'b'; break;
    case '\f': short_esc[1] = 'f'; break;
    case '\"': case '\\': short_esc[1] = c; break;
    default:
        return string_buffer_write8(b, esc, 6);
    }
    return string_buffer_write8(b, short_esc, 2);
}

/* mep engine: appends p to b as a JSON string literal, copying the runs between the characters
   that need an escape (a control character, a quote, a backslash, a lone surrogate) at once.
   JSON.stringify writes keys and strings through it straight into its output. */
static int mep_json_put_quoted(StringBuffer *b, const JSString *p)
{
    int i, run = 0;

    if (string_buffer_putc8(b, '\"'))
        return -1;
    if (!p->is_wide_char) {
        const uint8_t *s8 = p->u.str8;
        for (i = 0; i < p->len; i++) {
            uint8_t c = s8[i];
            if (c >= 32 && c != '\"' && c != '\\')
                continue;
            if (string_buffer_write8(b, s8 + run, i - run) || mep_json_put_escape(b, c))
                return -1;
            run = i + 1;
        }
        if (string_buffer_write8(b, s8 + run, i - run))
            return -1;
    } else {
        const uint16_t *s16 = p->u.str16;
        for (i = 0; i < p->len; i++) {
            uint16_t c = s16[i];
            if (c >= 32 && c != '\"' && c != '\\' && (c < 0xd800 || c >= 0xe000))
                continue;
            if (c >= 0xd800 && c < 0xdc00 && i + 1 < p->len && s16[i + 1] >= 0xdc00 && s16[i + 1] < 0xe000) {
                i++; /* a surrogate pair is copied as it is */
                continue;
            }
            if (string_buffer_write16(b, s16 + run, i - run) || mep_json_put_escape(b, c))
                return -1;
            run = i + 1;
        }
        if (string_buffer_write16(b, s16 + run, i - run))
            return -1;
    }
    return string_buffer_putc8(b, '\"');
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
