/**
 * An async function lets go of its dead locals when it awaits (issue 32). quickjs-ng keeps every
 * argument and local of a suspended async function until the function returns, whether or not
 * the code after the `await` reads them again; V8 keeps only what is live. An author's backend
 * reads its input, builds data in stages and then awaits a formatter: everything the earlier
 * stages built stays referenced by the suspended frame for the whole format. In the 3,000-type
 * GraphQL run that is the re-parsed schema and the parsed operations (their ASTs with every
 * token), about 100 MB of wasm32 heap held through prettier.
 *
 * At the first `await` a function runs, the bytecode is analysed once (a backward liveness over
 * its instructions, the catch handlers' live slots counted live everywhere): for each `await`,
 * the argument and local slots no path from its resume point reads before writing. When an await
 * suspends the frame, those slots that hold a reference are set to undefined and released. What
 * is never cleared: a slot a closure captured (the child functions' closure variables name them),
 * and nothing at all in a function with direct eval, `with`, mapped arguments, a reference to a
 * local (make_*_ref), `finally` (gosub/ret), `using` declarations or an instruction the analysis
 * does not know. A dead
 * slot's value can never be read again, so no program sees the difference; the standard leaves
 * collection to liveness (WeakRef and FinalizationRegistry may observe it earlier, as in V8).
 */
import type { QuickjsPatch } from './types.ts';

const FREE_BYTECODE = 'static void free_function_bytecode(JSRuntime *rt, JSFunctionBytecode *b)';

/** The analysis: after the opcode table, which it reads. */
const ANALYSIS = String.raw`/* mep engine: what an await may release (patches/await-liveness.ts). The table of a function:
   [sites, then per await site: resume pc, count, slots...], slots counted over arguments then
   locals; mep_no_dead when nothing is released. */
static const uint32_t mep_no_dead[1] = { 0 };

#define MEP_LIVE_MAX_SLOTS 4096
#define MEP_LIVE_MAX_CODE (1 << 20)

/* mep engine: the slots one instruction reads (use) and writes without reading (def);
   -1: an instruction the analysis must not reason about */
static int mep_slot_effect(const JSFunctionBytecode *b, const uint8_t *pc, int *use, int *use2, int *def)
{
    int op = pc[0], fmt = short_opcode_info(op).fmt, a = b->arg_count;

    *use = *use2 = *def = -1;
    switch (op) {
    case OP_eval: case OP_apply_eval: case OP_ret:
    case OP_make_loc_ref: case OP_make_arg_ref: case OP_make_var_ref_ref: case OP_make_var_ref:
    case OP_with_get_var: case OP_with_put_var: case OP_with_delete_var:
    case OP_with_make_ref: case OP_with_get_ref: case OP_with_get_ref_undef:
    /* using and await using declarations: the disposal stack is read where the bytecode does not say */
    case OP_using_dispose_init: case OP_using_dispose: case OP_using_dispose_async:
    case OP_using_dispose_merge: case OP_using_dispose_end: case OP_using_check:
        return -1;
    case OP_special_object:
        return pc[1] == OP_SPECIAL_OBJECT_MAPPED_ARGUMENTS || pc[1] == OP_SPECIAL_OBJECT_VAR_OBJECT ? -1 : 0;
    case OP_put_loc: case OP_set_loc: case OP_put_loc_check_init: case OP_set_loc_uninitialized:
        *def = a + get_u16(pc + 1); return 0;
    case OP_put_loc8: case OP_set_loc8:
        *def = a + pc[1]; return 0;
    case OP_put_arg: case OP_set_arg:
        *def = get_u16(pc + 1); return 0;
    case OP_put_loc0: case OP_put_loc1: case OP_put_loc2: case OP_put_loc3:
        *def = a + op - OP_put_loc0; return 0;
    case OP_set_loc0: case OP_set_loc1: case OP_set_loc2: case OP_set_loc3:
        *def = a + op - OP_set_loc0; return 0;
    case OP_get_loc0: case OP_get_loc1: case OP_get_loc2: case OP_get_loc3:
        *use = a + op - OP_get_loc0; return 0;
    case OP_get_loc0_loc1:
        *use = a; *use2 = a + 1; return 0;
    case OP_put_arg0: case OP_put_arg1: case OP_put_arg2: case OP_put_arg3:
        *def = op - OP_put_arg0; return 0;
    case OP_set_arg0: case OP_set_arg1: case OP_set_arg2: case OP_set_arg3:
        *def = op - OP_set_arg0; return 0;
    case OP_get_arg0: case OP_get_arg1: case OP_get_arg2: case OP_get_arg3:
        *use = op - OP_get_arg0; return 0;
    }
    /* any other instruction naming a slot reads it (get, checks, inc/dec, close, dispose) */
    switch (fmt) {
    case OP_FMT_loc: *use = a + get_u16(pc + 1); return 0;
    case OP_FMT_loc8: *use = a + pc[1]; return 0;
    case OP_FMT_arg: *use = get_u16(pc + 1); return 0;
    case OP_FMT_none_loc: case OP_FMT_none_arg: case OP_FMT_label_u16: case OP_FMT_atom_label_u16:
        return -1;
    }
    return 0;
}

/* mep engine: where an instruction may go next: *next (-1: nowhere after it) and *jump (-1: none);
   -1 when a jump leaves the code */
static int mep_successors(const uint8_t *pc, int pos, int len, int code_len, int *next, int *jump)
{
    int op = pc[0], fmt = short_opcode_info(op).fmt;

    *next = pos + len < code_len ? pos + len : -1;
    *jump = -1;
    if (fmt == OP_FMT_label)
        *jump = pos + 1 + (int32_t)get_u32(pc + 1);
    else if (fmt == OP_FMT_label8)
        *jump = pos + 1 + (int8_t)pc[1];
    else if (fmt == OP_FMT_label16)
        *jump = pos + 1 + (int16_t)get_u16(pc + 1);
    else
        goto flow;
    if (*jump < 0 || *jump >= code_len)
        return -1;
flow:
    switch (op) {
    case OP_goto: case OP_goto8: case OP_goto16:
    case OP_return: case OP_return_undef: case OP_return_async: case OP_throw: case OP_throw_error:
    case OP_tail_call: case OP_tail_call_method:
        *next = -1;
        break;
    }
    return 0;
}

/* mep engine: the table of b (see mep_no_dead), or NULL when out of memory */
static no_inline uint32_t *mep_await_table(JSRuntime *rt, JSFunctionBytecode *b)
{
    int n = b->arg_count + b->var_count, words = (n + 31) / 32, len = b->byte_code_len;
    int n_ins = 0, n_await = 0, i, w, pos, changed, out_len;
    int *at = NULL, *next = NULL, *jump = NULL, *use = NULL, *use2 = NULL, *def = NULL, *start = NULL;
    uint32_t *live = NULL, *keep = NULL, *catch_live = NULL, *tmp = NULL, *table = NULL, *result = NULL;
    const uint8_t *code = b->byte_code_buf;

    if (n == 0 || n > MEP_LIVE_MAX_SLOTS || len > MEP_LIVE_MAX_CODE)
        return (uint32_t *)mep_no_dead;
    at = js_malloc_rt(rt, sizeof(int) * (len + 1));
    if (!at)
        return NULL;
    memset(at, 0xff, sizeof(int) * (len + 1)); /* -1: not where an instruction starts */
    for (pos = 0; pos < len; pos += short_opcode_info(code[pos]).size) {
        at[pos] = n_ins++;
        n_await += code[pos] == OP_await;
    }
    /* no await, or more than 4 MB of sets: not worth it */
    if (pos != len || n_await == 0 || (size_t)n_ins * words > ((size_t)1 << 20))
        goto none;
    next = js_malloc_rt(rt, sizeof(int) * n_ins * 6);
    live = js_mallocz_rt(rt, sizeof(uint32_t) * words * (n_ins + 3));
    if (!next || !live)
        goto oom;
    jump = next + n_ins; use = jump + n_ins; use2 = use + n_ins; def = use2 + n_ins;
    start = def + n_ins;
    keep = live + words * n_ins; /* slots never released: the captured ones */
    catch_live = keep + words; /* live at any catch handler: live everywhere */
    tmp = catch_live + words;
    for (i = 0, pos = 0; i < n_ins; i++) {
        int l = short_opcode_info(code[pos]).size, j;
        start[i] = pos;
        if (mep_slot_effect(b, code + pos, &use[i], &use2[i], &def[i]) < 0)
            goto none;
        if (mep_successors(code + pos, pos, l, len, &next[i], &j) < 0 || (j >= 0 && at[j] < 0))
            goto none;
        jump[i] = j < 0 ? -1 : at[j];
        next[i] = next[i] < 0 ? -1 : at[next[i]];
        if ((use[i] >= n) || (use2[i] >= n) || (def[i] >= n))
            goto none;
        pos += l;
    }
    for (i = 0; i < b->cpool_count; i++) {
        JSFunctionBytecode *c;
        int k;
        if (JS_VALUE_GET_TAG(b->cpool[i]) != JS_TAG_FUNCTION_BYTECODE)
            continue;
        c = JS_VALUE_GET_PTR(b->cpool[i]);
        for (k = 0; k < c->closure_var_count; k++) {
            int s = c->closure_var[k].closure_type == JS_CLOSURE_ARG ? c->closure_var[k].var_idx
                  : c->closure_var[k].closure_type == JS_CLOSURE_LOCAL ? b->arg_count + c->closure_var[k].var_idx : -1;
            if (s >= n)
                goto none;
            if (s >= 0)
                keep[s / 32] |= 1u << (s % 32);
        }
    }
    if (b->vardefs)
        for (i = 0; i < n; i++)
            if (b->vardefs[i].is_captured)
                keep[i / 32] |= 1u << (i % 32);
    /* backward liveness to a fixpoint; live[i] is what is live on entry to instruction i */
    do {
        changed = 0;
        for (i = n_ins - 1; i >= 0; i--) {
            uint32_t *in = live + words * i;
            for (w = 0; w < words; w++)
                tmp[w] = catch_live[w] | (next[i] >= 0 ? live[words * next[i] + w] : 0) | (jump[i] >= 0 ? live[words * jump[i] + w] : 0);
            if (def[i] >= 0)
                tmp[def[i] / 32] &= ~(1u << (def[i] % 32));
            if (use[i] >= 0)
                tmp[use[i] / 32] |= 1u << (use[i] % 32);
            if (use2[i] >= 0)
                tmp[use2[i] / 32] |= 1u << (use2[i] % 32);
            for (w = 0; w < words; w++) {
                if (tmp[w] != in[w]) {
                    in[w] = tmp[w];
                    changed = 1;
                }
            }
            if (code[start[i]] == OP_catch && jump[i] >= 0) {
                for (w = 0; w < words; w++) {
                    uint32_t c = catch_live[w] | live[words * jump[i] + w];
                    if (c != catch_live[w]) {
                        catch_live[w] = c;
                        changed = 1;
                    }
                }
            }
        }
    } while (changed);
    /* the table: per await, the slots dead at its resume point */
    out_len = 1;
    for (i = 0; i < n_ins; i++)
        if (code[start[i]] == OP_await)
            out_len += 2 + n;
    table = js_malloc_rt(rt, sizeof(uint32_t) * out_len);
    if (!table)
        goto oom;
    table[0] = 0;
    out_len = 1;
    for (i = 0; i < n_ins; i++) {
        int count = 0, s;
        const uint32_t *after;
        if (code[start[i]] != OP_await || next[i] < 0)
            continue;
        after = live + words * next[i];
        for (s = 0; s < n; s++)
            if (!((after[s / 32] | keep[s / 32] | catch_live[s / 32]) & (1u << (s % 32))))
                table[out_len + 2 + count++] = s;
        if (count == 0)
            continue;
        table[out_len] = start[i] + 1;
        table[out_len + 1] = count;
        out_len += 2 + count;
        table[0]++;
    }
    if (table[0] != 0) {
        result = table;
        goto out;
    }
    js_free_rt(rt, table);
none:
    result = (uint32_t *)mep_no_dead;
oom: /* result stays NULL */
out:
    js_free_rt(rt, at);
    js_free_rt(rt, next);
    js_free_rt(rt, live);
    return result;
}

/* mep engine: an async function's frame sf was suspended by an await (its pc is the resume
   point): release the slots dead there */
static no_inline void mep_await_release(JSContext *ctx, JSStackFrame *sf)
{
    JSFunctionBytecode *b = JS_VALUE_GET_OBJ(sf->cur_func)->u.func.function_bytecode;
    JSValue *arg_buf = sf->arg_buf, *var_buf = sf->var_buf;
    uint32_t resume = sf->cur_pc - b->byte_code_buf;
    const uint32_t *t = b->mep_await_dead;
    uint32_t k, site, count;

    if (!t) {
        t = mep_await_table(ctx->rt, b);
        if (!t)
            return; /* out of memory: release nothing, try again at the next await */
        b->mep_await_dead = (uint32_t *)t;
    }
    for (site = 0, k = 1; site < t[0]; site++, k += 2 + count) {
        count = t[k + 1];
        if (t[k] != resume)
            continue;
        for (uint32_t j = 0; j < count; j++) {
            uint32_t s = t[k + 2 + j];
            JSValue *slot = s < b->arg_count ? &arg_buf[s] : &var_buf[s - b->arg_count];
            if (JS_VALUE_HAS_REF_COUNT(*slot)) {
                JSValue v = *slot;
                *slot = JS_UNDEFINED;
                JS_FreeValue(ctx, v);
            }
        }
        return;
    }
}
`;

export const AWAIT_LIVENESS_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'uint8_t *pc2line_buf;', near: 'typedef struct JSFunctionBytecode {' },
    op: 'after',
    text: '    uint32_t *mep_await_dead; /* mep engine: what each await releases, made at the first (patches/await-liveness.ts) */',
    why: 'the per-function table of dead slots at each await, computed once when the function first awaits (never serialized)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static void free_function_bytecode(JSRuntime *rt, JSFunctionBytecode *b);' },
    op: 'after',
    text: 'static no_inline void mep_await_release(JSContext *ctx, JSStackFrame *sf);',
    why: 'async_func_resume calls it; it is defined after the opcode table it reads',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static void json_free_token(JSParseState *s, JSToken *token) {' },
    op: 'before',
    text: ANALYSIS,
    why: 'the liveness analysis and the release (see the file\'s comment)',
  },
  {
    file: 'quickjs.c',
    at: { from: 'return JS_CallInternal(ctx, func_obj, s->this_val, JS_UNDEFINED,', to: 'JS_CALL_FLAG_GENERATOR);', near: 'static JSValue async_func_resume(JSContext *ctx, JSAsyncFunctionState *s)', sha256: 'c1d51ff9834e0a65' },
    op: 'replace',
    text: String.raw`    /* mep engine: a frame an await suspended holds only what it may still read (patches/await-liveness.ts) */
    {
        JSValue ret = JS_CallInternal(ctx, func_obj, s->this_val, JS_UNDEFINED,
                                      s->argc, vc(s->frame.arg_buf),
                                      JS_CALL_FLAG_GENERATOR);
        if (JS_VALUE_GET_TAG(ret) == JS_TAG_INT && JS_VALUE_GET_INT(ret) == FUNC_RET_AWAIT)
            mep_await_release(ctx, &s->frame);
        return ret;
    }`,
    why:
      'a suspended async function holds only what it may still read (see the file\'s comment); released where the ' +
      'interpreter returns to the async machinery, not inside the interpreter: code there made each JS call\'s wasm ' +
      'frame larger, and deep recursion then overflowed the host\'s stack before QuickJS\'s own limit (engine.test.ts)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'js_free_rt(rt, b->source);', near: FREE_BYTECODE },
    op: 'after',
    text: '    if (b->mep_await_dead != mep_no_dead) /* mep engine: the await table */\n        js_free_rt(rt, (void *)b->mep_await_dead);',
    why: 'the await table goes with its function',
  },
];
