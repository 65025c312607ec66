/**
 * JSON nesting limit: JSON.parse and JSON.stringify count how deep they are and raise the stack
 * overflow (RangeError "Maximum call stack size exceeded", as V8 and quickjs-ng word it) past
 * {@link MEP_JSON_MAX_DEPTH} levels. Each level is a few wasm frames that use little of the
 * guest's own stack, which QuickJS checks, but much of the host's native stack, which it cannot
 * see: measured on quickjs-ng 0.17.0 without this edit, `JSON.parse('['.repeat(200000) + ...)`
 * and the matching stringify overflowed the host's stack and trapped the call.
 * Each edit wraps one recursive function: its first line becomes a counting wrapper that calls
 * the original body, renamed.
 */
import type { QuickjsPatch } from './types.ts';

/** The deepest JSON either direction handles (V8's own limit for stringify is near 10,000). */
export const MEP_JSON_MAX_DEPTH = 2000;

const COUNTER = String.raw`/* mep engine: how deep JSON.parse and JSON.stringify are, together (one runtime, one thread) */
#define MEP_JSON_MAX_DEPTH ${MEP_JSON_MAX_DEPTH}
static int mep_json_depth;
`;

export const JSON_DEPTH_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue json_parse_value(JSParseState *s, JSONParseRecord *pr)' },
    op: 'replace',
    text: `${COUNTER}
static JSValue mep_json_parse_value_body(JSParseState *s, JSONParseRecord *pr);

/* mep engine: json_parse_value with the arrays and objects it is in counted (see MEP_JSON_MAX_DEPTH) */
static JSValue json_parse_value(JSParseState *s, JSONParseRecord *pr)
{
    JSValue val;

    if (s->token.val != '[' && s->token.val != '{')
        return mep_json_parse_value_body(s, pr);
    if (mep_json_depth >= MEP_JSON_MAX_DEPTH)
        return JS_ThrowStackOverflow(s->ctx);
    mep_json_depth++;
    val = mep_json_parse_value_body(s, pr);
    mep_json_depth--;
    return val;
}

static JSValue mep_json_parse_value_body(JSParseState *s, JSONParseRecord *pr)`,
    why:
      'count how deep JSON.parse is: past MEP_JSON_MAX_DEPTH levels it is a stack overflow, before the host\'s native stack ' +
      'overflows and traps the call (200,000 nested arrays trapped without it)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static int js_json_to_str(JSContext *ctx, JSONStringifyContext *jsc,' },
    op: 'replace',
    text: String.raw`static int mep_json_to_str_body(JSContext *ctx, JSONStringifyContext *jsc,
                                JSValueConst holder, JSValue val, JSValueConst indent);

/* mep engine: js_json_to_str with the objects it is in counted (see MEP_JSON_MAX_DEPTH); it owns val */
static int js_json_to_str(JSContext *ctx, JSONStringifyContext *jsc,
                          JSValueConst holder, JSValue val, JSValueConst indent)
{
    int ret;

    if (!JS_IsObject(val))
        return mep_json_to_str_body(ctx, jsc, holder, val, indent);
    if (mep_json_depth >= MEP_JSON_MAX_DEPTH) {
        JS_FreeValue(ctx, val);
        JS_ThrowStackOverflow(ctx);
        return -1;
    }
    mep_json_depth++;
    ret = mep_json_to_str_body(ctx, jsc, holder, val, indent);
    mep_json_depth--;
    return ret;
}

static int mep_json_to_str_body(JSContext *ctx, JSONStringifyContext *jsc,`,
    why:
      'count how deep JSON.stringify is, with the same limit and for the same reason as JSON.parse (200,000 nested arrays ' +
      'or objects trapped the call without it)',
  },
];
