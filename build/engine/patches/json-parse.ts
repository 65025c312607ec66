/** Edits to JSON.parse: strings made at once and shared, members and elements added directly, shapes kept. */
import { ARRAY_CASE, ARRAY_CASE_ORIGINAL, JSON_CACHE, NEW_ARRAY_FROM } from './json-parse-c.ts';
import type { QuickjsPatch } from './types.ts';

export const JSON_PARSE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    find:
      '        /* fall through */\n    case \'\\"\':\n        if (js_parse_string(s, c, TRUE, p + 1, &s->token, &p))\n            goto fail;\n        break;\n' +
      '    case \'\\r\':  /* accept DOS and MAC newline sequences */',
    replace:
      '        /* fall through */\n    case \'\\"\':\n' +
      '        if (c == \'\\"\') {\n' +
      '            /* mep engine: a string without escapes is made at once, or shared (mep_json_string);\n' +
      '               mep_json_len8 (with the JSON.stringify edits) is 1 for the bytes it may hold */\n' +
      '            const uint8_t *q = p + 1;\n' +
      '            uint32_t high = 0;\n' +
      '            while (q < s->buf_end && mep_json_len8[*q] == 1)\n' +
      '                high |= *q++;\n' +
      '            if (q < s->buf_end && *q == \'\\"\') {\n' +
      '                JSValue str = mep_json_string(s, p + 1, q - (p + 1), high < 0x80);\n' +
      '                if (JS_IsException(str))\n' +
      '                    goto fail;\n' +
      '                if (JS_VALUE_GET_TAG(str) == JS_TAG_STRING) {\n' +
      '                    s->token.val = TOK_STRING;\n' +
      '                    s->token.u.str.sep = c;\n' +
      '                    s->token.u.str.str = str;\n' +
      '                    p = q + 1;\n' +
      '                    break;\n' +
      '                }\n' +
      '            }\n' +
      '        }\n' +
      '        if (js_parse_string(s, c, TRUE, p + 1, &s->token, &p))\n            goto fail;\n        break;\n' +
      '    case \'\\r\':  /* accept DOS and MAC newline sequences */',
    why:
      'let JSON.parse make a string without escapes (nearly every name and key in an IR) at once, decoding its UTF-8 in ' +
      'two passes, or share the string of an earlier one with the same text: the shared JS string lexer appended it to a ' +
      'growable buffer character by character',
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
      '                            ret = mep_json_add_member(s, p, prop_name, prop_val);\n' +
      '                    }',
    why:
      'let JSON.parse add a member to the object it is building without the generic definition path (exotic objects, ' +
      'getters, non-extensible checks, which a fresh plain object never has), through the shapes this parse keeps; a ' +
      'repeated key still goes the generic way',
  },
  {
    file: 'quickjs.c',
    find: '                    if (s->token.val == TOK_STRING) {\n                        prop_name = JS_ValueToAtom(ctx, s->token.u.str.str);',
    replace:
      '                    if (s->token.val == TOK_STRING) {\n' +
      '                        /* mep engine: a key whose (shared) string is already an atom is that atom */\n' +
      '                        JSString *key = JS_VALUE_GET_STRING(s->token.u.str.str);\n' +
      '                        prop_name = key->atom_type == JS_ATOM_TYPE_STRING\n' +
      '                                        ? JS_DupAtom(ctx, js_get_atom_index(ctx->rt, key))\n' +
      '                                        : JS_ValueToAtom(ctx, s->token.u.str.str);',
    why:
      'let JSON.parse find the atom of a key it has seen before without hashing its text again: the string cache hands ' +
      'out the string that the first such key turned into an atom',
  },
  {
    file: 'quickjs.c',
    find: '    case TOK_STRING:\n        val = JS_DupValue(ctx, s->token.u.str.str);\n        if (json_next_token(s))',
    replace:
      '    case TOK_STRING:\n' +
      '        /* mep engine: the value takes the token\'s string (the token no longer holds it) */\n' +
      '        val = s->token.u.str.str;\n' +
      '        s->token.val = TOK_EOF;\n' +
      '        if (json_next_token(s))',
    why: 'let a string value take its token\'s string instead of a reference that the next token then dropped again',
  },
  {
    file: 'quickjs.c',
    find: '    s->ext_json = ((flags & JS_PARSE_JSON_EXT) != 0);\n    if (json_next_token(s))\n        goto fail;\n    val = json_parse_value(s);',
    replace:
      '    s->ext_json = ((flags & JS_PARSE_JSON_EXT) != 0);\n' +
      '    /* mep engine: a small document has little to share, and is parsed without the cache, which\n' +
      '       would cost more to set up and clear than it saves (a ping\'s few bytes, for one) */\n' +
      '    if (buf_len >= MEP_JSON_CACHE_MIN_INPUT) {\n' +
      '        mep_json_cache_init(&cache);\n' +
      '        s->mep_json_cache = &cache;\n' +
      '    }\n' +
      '    if (json_next_token(s))\n        goto fail;\n    val = json_parse_value(s);',
    why: 'give each JSON.parse of 4 KiB or more its string and shape cache (mep_json_string, mep_json_add_member)',
  },
  {
    file: 'quickjs.c',
    find: '    JSParseState s1, *s = &s1;\n    JSValue val = JS_UNDEFINED;\n\n    js_parse_init(ctx, s, buf, buf_len, filename);',
    replace:
      '    JSParseState s1, *s = &s1;\n    JSValue val = JS_UNDEFINED;\n    MepJsonCache cache; /* mep engine */\n\n' +
      '    js_parse_init(ctx, s, buf, buf_len, filename);',
    why: 'where that cache lives: on the stack of the JSON.parse it serves',
  },
  {
    file: 'quickjs.c',
    find: '    return val;\n fail:\n    JS_FreeValue(ctx, val);\n    free_token(s, &s->token);\n    return JS_EXCEPTION;\n}\n\nJSValue JS_ParseJSON(',
    replace:
      '    if (s->mep_json_cache != NULL)\n        mep_json_cache_free(ctx, &cache); /* mep engine */\n' +
      '    return val;\n fail:\n    JS_FreeValue(ctx, val);\n    free_token(s, &s->token);\n' +
      '    if (s->mep_json_cache != NULL)\n        mep_json_cache_free(ctx, &cache); /* mep engine */\n' +
      '    return JS_EXCEPTION;\n}\n\nJSValue JS_ParseJSON(',
    why: 'release the cache on both ways out of JSON.parse',
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
    replace:
      '    BOOL ext_json; /* true if accepting JSON superset */\n    int mep_json_depth; /* mep engine: the arrays and objects JSON.parse is in */\n' +
      '    struct MepJsonCache *mep_json_cache; /* mep engine: what JSON.parse shares while it runs, or NULL */\n} JSParseState;\n' +
      JSON_CACHE,
    why: 'where JSON.parse counts how deep it is and finds its cache (js_parse_init zeroes both), and the cache itself',
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
