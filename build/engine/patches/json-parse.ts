/** Edits to JSON.parse: plain strings in one copy, members and elements added directly. */
import type { QuickjsPatch } from './types.ts';

/** QuickJS's JSON.parse of an array, replaced whole. */
const ARRAY_CASE_ORIGINAL = String.raw`    case '[':
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
const ARRAY_CASE = String.raw`    case '[':
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
const NEW_ARRAY_FROM = String.raw`/* mep engine: JSON nested deeper than this is a stack overflow, in JSON.parse and JSON.stringify:
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

export const JSON_PARSE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    find:
      '        /* fall through */\n    case \'\\"\':\n        if (js_parse_string(s, c, TRUE, p + 1, &s->token, &p))\n            goto fail;\n        break;\n' +
      '    case \'\\r\':  /* accept DOS and MAC newline sequences */',
    replace:
      '        /* fall through */\n    case \'\\"\':\n' +
      '        if (c == \'\\"\') {\n' +
      '            /* mep engine: printable ASCII without escapes becomes a string at once */\n' +
      '            const uint8_t *q = p + 1;\n' +
      '            while (q < s->buf_end && *q >= 0x20 && *q < 0x80 && *q != \'\\"\' && *q != \'\\\\\')\n' +
      '                q++;\n' +
      '            if (q < s->buf_end && *q == \'\\"\') {\n' +
      '                JSValue str = js_new_string8(s->ctx, p + 1, q - (p + 1));\n' +
      '                if (JS_IsException(str))\n' +
      '                    goto fail;\n' +
      '                s->token.val = TOK_STRING;\n' +
      '                s->token.u.str.sep = c;\n' +
      '                s->token.u.str.str = str;\n' +
      '                p = q + 1;\n' +
      '                break;\n' +
      '            }\n' +
      '        }\n' +
      '        if (js_parse_string(s, c, TRUE, p + 1, &s->token, &p))\n            goto fail;\n        break;\n' +
      '    case \'\\r\':  /* accept DOS and MAC newline sequences */',
    why:
      'let JSON.parse take a string of printable ASCII without escapes (nearly every name and key in an IR) in one copy: ' +
      'the shared JS string lexer appended it to a growable buffer character by character',
  },
  {
    file: 'quickjs.c',
    find: '                    ret = JS_DefinePropertyValue(ctx, val, prop_name,\n                                                 prop_val, JS_PROP_C_W_E);',
    replace:
      '                    {\n' +
      '                        /* mep engine: a new key of the fresh plain object is added directly */\n' +
      '                        JSProperty *pr;\n' +
      '                        JSObject *p = JS_VALUE_GET_OBJ(val);\n' +
      '                        if (find_own_property(&pr, p, prop_name))\n' +
      '                            ret = JS_DefinePropertyValue(ctx, val, prop_name, prop_val, JS_PROP_C_W_E);\n' +
      '                        else\n' +
      '                            ret = mep_add_data_property(ctx, p, prop_name, prop_val);\n' +
      '                    }',
    why:
      'let JSON.parse add a member to the object it is building without the generic definition path (exotic objects, ' +
      'getters, non-extensible checks, which a fresh plain object never has); a repeated key still goes the generic way',
  },
  {
    file: 'quickjs.c',
    find: 'static JSValue json_parse_value(JSParseState *s)\n{\n    JSContext *ctx = s->ctx;',
    replace: NEW_ARRAY_FROM + 'static JSValue mep_json_parse_value(JSParseState *s)\n{\n    JSContext *ctx = s->ctx;',
    why:
      'count how deep JSON.parse is (a stack overflow past MEP_JSON_MAX_DEPTH, before the host\'s stack overflows and traps ' +
      'the call), and the helper of the edit below: a fast array made at its size from values in hand',
  },
  {
    file: 'quickjs.c',
    find: '    BOOL ext_json; /* true if accepting JSON superset */\n} JSParseState;',
    replace: '    BOOL ext_json; /* true if accepting JSON superset */\n    int mep_json_depth; /* mep engine: the arrays and objects JSON.parse is in */\n} JSParseState;',
    why: 'where JSON.parse counts how deep it is (js_parse_init zeroes it)',
  },
  {
    file: 'quickjs.c',
    find: ARRAY_CASE_ORIGINAL,
    replace: ARRAY_CASE,
    why:
      'let JSON.parse gather an array\'s elements and make the array once, at its size: each element went through a number, ' +
      'an atom and the generic definition path, and the array grew to 1, 2, 3, 4, 6... elements, moving each time',
  },
];
