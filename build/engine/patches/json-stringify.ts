/**
 * Edits to JSON.stringify: quoting copies runs of characters instead of one at a time, and the
 * cycle check compares pointers. quickjs-ng 0.17.0 spent most of JSON.stringify there (callgrind,
 * native -Os build, parse + stringify flat and indented of a 570 KB IR three times:
 * js_array_includes with js_strict_eq2 9.5 % of all instructions, JS_ToQuotedString with
 * string_buffer_putc and string_getc 6 %). build/engine/json.test.ts checks the output
 * against V8's, hostile cases included.
 */
import { DIRECT_WRITER } from './json-writer-c.ts';
import type { QuickjsPatch } from './types.ts';

/** Our JS_ToQuotedString, in place of quickjs-ng's. */
const QUOTED_STRING = String.raw`/* mep engine: the escape of c (a quote, a backslash, a control character, a lone surrogate) */
static int mep_json_put_escape(StringBuffer *b, uint32_t c)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t esc[6] = { '\\', 'u', '0', '0', 0, 0 };
    int len = 2;

    switch (c) {
    case '\t': esc[1] = 't'; break;
    case '\r': esc[1] = 'r'; break;
    case '\n': esc[1] = 'n'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\"': case '\\': esc[1] = c; break;
    default:
        esc[2] = hex[(c >> 12) & 15];
        esc[3] = hex[(c >> 8) & 15];
        esc[4] = hex[(c >> 4) & 15];
        esc[5] = hex[c & 15];
        len = 6;
        break;
    }
    return string_buffer_write8(b, esc, len);
}

/* mep engine: the characters of p from i on that a JSON string literal holds as they are (a
   valid surrogate pair among them) are appended to b in runs, each other escaped: the way for
   a string near the longest a string may be */
static int mep_json_put_runs(StringBuffer *b, JSString *p, uint32_t i)
{
    uint32_t run, c, n = p->len;
    const uint8_t *s8 = p->is_wide_char ? NULL : str8(p);
    const uint16_t *s16 = p->is_wide_char ? str16(p) : NULL;

    for (run = i; i < n; i++) {
        c = s8 ? s8[i] : s16[i];
        if (likely(c >= 0x20 && c != '\"' && c != '\\' && (c < 0xd800 || c >= 0xe000)))
            continue;
        if (c >= 0xd800 && c < 0xdc00 && i + 1 < n && s16[i + 1] >= 0xdc00 && s16[i + 1] < 0xe000) {
            i++;
            continue;
        }
        if (string_buffer_concat(b, p, run, i) || mep_json_put_escape(b, c))
            return -1;
        run = i + 1;
    }
    return string_buffer_concat(b, p, run, n);
}

/* the JSON escape of c (a quote, a backslash, a control character or a lone surrogate) at d */
#define MEP_JSON_ESCAPE_AT(d, k, c)                                                           \
    do {                                                                                    \
        static const char mep_hex[] = "0123456789abcdef";                                   \
        (d)[(k)++] = '\\';                                                                  \
        switch (c) {                                                                        \
        case '\t': (d)[(k)++] = 't'; break;                                                 \
        case '\r': (d)[(k)++] = 'r'; break;                                                 \
        case '\n': (d)[(k)++] = 'n'; break;                                                 \
        case '\b': (d)[(k)++] = 'b'; break;                                                 \
        case '\f': (d)[(k)++] = 'f'; break;                                                 \
        case '\"': case '\\': (d)[(k)++] = (c); break;                                      \
        default:                                                                            \
            (d)[(k)++] = 'u';                                                               \
            (d)[(k)++] = mep_hex[((c) >> 12) & 15];                                         \
            (d)[(k)++] = mep_hex[((c) >> 8) & 15];                                          \
            (d)[(k)++] = mep_hex[((c) >> 4) & 15];                                          \
            (d)[(k)++] = mep_hex[(c) & 15];                                                 \
        }                                                                                   \
    } while (0)

/* one chunk [i, end) of the characters s (of either width: the tests of surrogates fold away for
   bytes) into d at k, which has room for six units a character: a plain character as it is, a
   valid surrogate pair as it is (its second half may lie at end), any other escaped */
#define MEP_JSON_QUOTE_CHUNK(d, k, s, i, end, n)                                              \
    do {                                                                                    \
        for (; (i) < (end); (i)++) {                                                        \
            uint32_t c = (s)[i];                                                            \
            if (likely(c >= 0x20 && c != '\"' && c != '\\' && (c < 0xd800 || c >= 0xe000))) { \
                (d)[(k)++] = c;                                                             \
            } else if (c >= 0xd800 && c < 0xdc00 && (i) + 1 < (n) && (s)[(i) + 1] >= 0xdc00 &&   \
                       (s)[(i) + 1] < 0xe000) {                                             \
                (d)[(k)++] = c;                                                             \
                (d)[(k)++] = (s)[++(i)];                                                    \
            } else {                                                                        \
                MEP_JSON_ESCAPE_AT(d, k, c);                                                \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* mep engine: string_buffer_putc8 with its common case inline: the direct writer puts every
   bracket, comma and colon through it */
static inline __attribute__((always_inline)) int mep_json_putc(StringBuffer *b, uint32_t c)
{
    if (likely(b->len < b->size)) {
        if (b->is_wide_char)
            str16(b->str)[b->len++] = c;
        else
            str8(b->str)[b->len++] = c;
        return 0;
    }
    return string_buffer_putc8(b, c);
}

/* the plain characters (as they are in a JSON string literal) at the start of s[0..n), copied
   to d + 1 as they are checked: how many */
#define MEP_JSON_COPY_PLAIN(d, s, n, i)                                                       \
    do {                                                                                    \
        for ((i) = 0; (i) < (n); (i)++) {                                                   \
            uint32_t c = (s)[i];                                                            \
            if (unlikely(c < 0x20 || c == '\"' || c == '\\' || (c >= 0xd800 && c < 0xe000))) \
                break;                                                                      \
            (d)[(i) + 1] = c;                                                               \
        }                                                                                   \
    } while (0)

/* the plain bytes (as they are in a JSON string literal) at the start of s[0..n), copied to
   d + 1 as they are checked, eight at a time while none of the eight is below 0x20, a quote or a
   backslash (a byte of 0x80 or more is plain: the bytes are Latin-1): how many */
static inline uint32_t mep_json_copy_plain8(uint8_t *d, const uint8_t *s, uint32_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint32_t i;

    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t x, q, e;
        memcpy(&x, s + i, 8);
        q = x ^ (ones * '\"');
        e = x ^ (ones * '\\');
        /* a byte below 0x20, or one equal to a quote or a backslash (the bit tricks are exact
           as a whole: a borrow only spreads above a byte that matches) */
        if ((((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((e - ones) & ~e)) & highs)
            break;
        memcpy(d + 1 + i, &x, 8);
    }
    for (; i < n; i++) {
        uint32_t c = s[i];
        if (unlikely(c < 0x20 || c == '\"' || c == '\\'))
            break;
        d[i + 1] = c;
    }
    return i;
}

/* mep engine: appends p to b as a JSON string literal. JSON.stringify's direct writer quotes keys
   and strings through it straight into its output. A string that fits in the room left and needs
   no escape is copied as it is checked, its quotes around it; any other goes in chunks, each given
   its worst-case room first, so that no character costs a call or a check of room; quickjs-ng
   decoded and appended one character at a time, with a call each. */
static int mep_json_put_quoted(StringBuffer *b, JSString *p)
{
    uint32_t i = 0, n = p->len;
    const uint8_t *s8 = p->is_wide_char ? NULL : str8(p);
    const uint16_t *s16 = p->is_wide_char ? str16(p) : NULL;

    if ((int64_t)b->size - b->len >= (int64_t)n + 2 && (b->is_wide_char || s8)) {
        if (b->is_wide_char) {
            uint16_t *d = str16(b->str) + b->len;
            if (s8)
                MEP_JSON_COPY_PLAIN(d, s8, n, i);
            else
                MEP_JSON_COPY_PLAIN(d, s16, n, i);
            d[0] = d[n + 1] = '\"';
        } else {
            uint8_t *d = str8(b->str) + b->len;
            i = mep_json_copy_plain8(d, s8, n);
            d[0] = d[n + 1] = '\"';
        }
        if (i == n) {
            b->len += n + 2;
            return 0;
        }
        i = 0; /* an escape: written again below, over what this copied */
    }
    if (mep_json_putc(b, '\"'))
        return -1;
    if (p->is_wide_char && !b->is_wide_char && string_buffer_widen(b, b->size))
        return -1;
    /* a long string: room for it and a quarter more at once (a JSON text quoted again has an
       escape every few characters), not 1.5 times the buffer again and again as its chunks come */
    {
        int64_t room = b->len + (int64_t)(n - i) * 5 / 4 + 1;
        if (n - i > 4096 && room > b->size && room <= JS_STRING_LEN_MAX && string_buffer_realloc(b, (int)room, 0))
            return -1;
    }
    while (i < n) {
        uint32_t end = n - i > 4096 ? i + 4096 : n;
        int k, need = (int)(end - i) * 6 + 1;
        if (b->len + (int64_t)need > JS_STRING_LEN_MAX) {
            if (mep_json_put_runs(b, p, i))
                return -1;
            break;
        }
        if (b->len + need > b->size && string_buffer_realloc(b, b->len + need, 0))
            return -1;
        k = b->len;
        /* one loop for each width of p and b (b is wide when p is) */
        if (!b->is_wide_char) {
            uint8_t *d = str8(b->str);
            MEP_JSON_QUOTE_CHUNK(d, k, s8, i, end, n);
        } else if (s8) {
            uint16_t *d = str16(b->str);
            MEP_JSON_QUOTE_CHUNK(d, k, s8, i, end, n);
        } else {
            uint16_t *d = str16(b->str);
            MEP_JSON_QUOTE_CHUNK(d, k, s16, i, end, n);
        }
        b->len = k;
    }
    return mep_json_putc(b, '\"');
}

/* mep engine: JS_ToQuotedString through mep_json_put_quoted */
static JSValue JS_ToQuotedString(JSContext *ctx, JSValueConst val1)
{
    JSValue val;
    JSString *p;
    StringBuffer b_s, *b = &b_s;

    val = JS_ToStringCheckObject(ctx, val1);
    p = JS_IsException(val) ? NULL : JS_VALUE_GET_STRING(val);
    if (p == NULL)
        return val;
    if (string_buffer_init2(ctx, b, p->len + 2, p->is_wide_char) == 0 && mep_json_put_quoted(b, p) == 0) {
        JS_FreeValue(ctx, val);
        return string_buffer_end(b);
    }
    string_buffer_free(b);
    JS_FreeValue(ctx, val);
    return JS_EXCEPTION;
}`;

export const JSON_STRINGIFY_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { fn: 'static JSValue JS_ToQuotedString(JSContext *ctx, JSValueConst val1)', sha256: 'cdddc83466b47d30' },
    op: 'replace',
    text: QUOTED_STRING,
    why:
      'quote a string by copying the runs between the characters that need an escape: quickjs-ng read and appended every ' +
      'character with a call each (JS_ToQuotedString, string_getc, string_buffer_putc: 6 % of a JSON round trip)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue JS_ToQuotedStringFree(JSContext *ctx, JSValue val) {' },
    op: 'before',
    text: String.raw`/* mep engine: is obj on JSON.stringify's stack of the objects being written? Only JSON.stringify
   touches that array and it holds objects only, so comparing pointers is SameValueZero */
static JSValue mep_json_on_stack(JSContext *ctx, JSValueConst stack, JSValueConst obj)
{
    JSValue *arrp;
    uint32_t i, count;

    if (!js_get_fast_array(ctx, stack, &arrp, &count))
        return js_array_includes(ctx, stack, 1, &obj);
    for (i = 0; i < count; i++) {
        if (JS_VALUE_GET_PTR(arrp[i]) == JS_VALUE_GET_PTR(obj))
            return js_bool(true);
    }
    return js_bool(false);
}
`,
    why: 'the cycle check of JSON.stringify without a call and a generic comparison per object on the stack (see the next edit)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'JSValue JS_JSONStringify(JSContext *ctx, JSValueConst obj,' },
    op: 'before',
    text: DIRECT_WRITER,
    why:
      'write plain objects and arrays directly: js_json_to_str listed each object\'s keys as a JS array of strings, read ' +
      'each value back by that string, quoted a copy of each key, built the indentation and separators as strings per ' +
      'level and named every array index (the direct writer, json-writer-c.ts)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'if (js_json_to_str(ctx, jsc, wrapper, val, jsc->empty))' },
    op: 'replace',
    text:
      '    /* mep engine: without a replacer function or a property list, the direct writer */\n' +
      '    if (JS_IsUndefined(jsc->replacer_func) && JS_IsUndefined(jsc->property_list)\n' +
      '        ? mep_json_write(ctx, jsc, wrapper, val, NULL)\n' +
      '        : js_json_to_str(ctx, jsc, wrapper, val, jsc->empty))',
    why: 'use the direct writer when nothing can observe the generic path\'s order of work (no replacer or list)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'v = js_array_includes(ctx, jsc->stack, 1, vc(&val));' },
    op: 'replace',
    text: '        v = mep_json_on_stack(ctx, jsc->stack, val); /* mep engine */',
    why:
      'check for a cycle by comparing pointers: js_array_includes ran js_strict_eq2 on every object being written, for ' +
      'every object (9.5 % of a JSON round trip)',
  },
];
