/**
 * The temporal-dead-zone checks of `let`/`const` locals dropped where the compiler proves them
 * passed (issue 32). quickjs-ng reads and assigns every lexical local with `get_loc_check` /
 * `put_loc_check`, which test for JS_UNINITIALIZED at each execution, even in a loop that runs
 * long after the declaration: @noble/hashes' SHA-256 reads its `let { A, … H }` and the `const`s of
 * its rounds 3.76 M times in the lint (64 M instructions inclusive, 9 % of it). Between
 * resolve_variables and resolve_labels, a forward analysis over the function's bytecode finds, at
 * each instruction, the locals that are initialized on every path to it; a check on such a local
 * cannot throw and becomes the plain `get_loc` / `put_loc` (same length, so nothing moves). Then
 * resolve_labels treats them as a `var`'s: an assignment statement `x = y;` becomes `put_loc`
 * (not `dup put_loc drop`, two dispatches more), `i++` and `s += t` become `inc_loc` and
 * `add_loc`, `put_loc x; get_loc x` becomes `set_loc`, and the short opcodes apply. (Run after
 * resolve_labels, as it was first, it left every proven access in its long, unfused form.)
 *
 * What the analysis trusts, and where it gives up on a whole function (keeping every check):
 *   - a local's slot holds JS_UNINITIALIZED only after `set_loc_uninitialized` (a frame starts
 *     with every local undefined), and only the function itself writes its slots; so a captured
 *     local (a closure may be the one to initialize it: `this` in a derived constructor's arrow)
 *     and a function with a direct `eval`, `with`, a reference to a local (`make_*_ref`), a
 *     `finally` (`gosub`/`ret` jump through the stack) or a `using` declaration are left alone;
 *   - a value stored into a local is never JS_UNINITIALIZED itself: a function that reads a local
 *     that can be uninitialized, or a lexical closure variable, without the check (private names
 *     and brands are read so) is left alone;
 *   - a catch handler assumes nothing (an exception can come from anywhere in its `try`).
 */
import type { QuickjsPatch } from './types.ts';

const ANALYSIS = String.raw`/* mep engine: the TDZ checks of lexical locals a forward analysis proves passed become plain
   reads and writes (see build/engine/patches/tdz.ts). In a state, bit k set: the k-th local that
   can be uninitialized is initialized on every path here. Gives up (changing nothing) on what it
   does not model, and on an allocation failure. It reads the code resolve_variables left (long
   opcodes only, jumps to labels, OP_label and OP_source_loc between), so that resolve_labels then
   applies its peephole forms to the plain reads and writes as it does to a var's. */
#define MEP_TDZ_VARS 64
/* where the jump at bc + pos goes in the code between resolve_variables and resolve_labels: its
   operand is a label, whose slot holds its position in that code (-1, or out of range: give up) */
static int mep_tdz_label(const JSFunctionDef *fd, const uint8_t *operand)
{
    uint32_t label = get_u32(operand);
    return label < (uint32_t)fd->label_count ? fd->label_slots[label].pos2 : -1;
}
#define MEP_TDZ_LABEL(pos) mep_tdz_label(fd, bc + (pos) + 1)
static void mep_tdz_elide(JSContext *ctx, JSFunctionDef *fd)
{
    JSRuntime *rt = ctx->rt;
    uint8_t *bc = fd->byte_code.buf;
    int len = fd->byte_code.size, pos, next, op, idx, k, nbits = 0, nwork = 0, succ[2], nsucc;
    int8_t *bit = NULL; /* per local: its bit, -1 if it is not analysed */
    uint8_t *may_uninit = NULL, *seen = NULL; /* per local; per pc: 1 reached, 2 queued */
    uint64_t *in = NULL, st;
    int *work = NULL;

    if (fd->has_eval_call || len == 0)
        return;
    for (k = 0; k < fd->var_count; k++) /* no lexical local of its own (ES5 code): nothing to do */
        if (fd->vars[k].is_lexical && !fd->vars[k].is_captured)
            break;
    if (k == fd->var_count)
        return;
    bit = js_malloc_rt(rt, fd->var_count);
    may_uninit = js_mallocz_rt(rt, fd->var_count);
    if (!bit || !may_uninit)
        goto done;
    memset(bit, -1, fd->var_count);
    /* the locals that can be uninitialized, and what makes the function one to leave alone */
    for (pos = 0; pos < len; pos += opcode_info[op].size) {
        op = bc[pos];
        if (op == OP_set_loc_uninitialized) {
            idx = get_u16(bc + pos + 1);
            may_uninit[idx] = 1;
            if (fd->vars[idx].is_lexical && !fd->vars[idx].is_captured && bit[idx] < 0 && nbits < MEP_TDZ_VARS)
                bit[idx] = nbits++;
        } else if (op == OP_gosub || op == OP_ret || (op >= OP_with_get_var && op <= OP_with_get_ref_undef) ||
                   (op >= OP_make_loc_ref && op <= OP_make_var_ref) ||
                   (op >= OP_using_dispose_init && op <= OP_using_check)) {
            goto done;
        }
    }
    if (nbits == 0)
        goto done;
    /* a read without the check that could push JS_UNINITIALIZED */
    for (pos = 0; pos < len; pos += opcode_info[op].size) {
        op = bc[pos];
        switch (op) {
        case OP_get_loc: idx = get_u16(bc + pos + 1); break;
        case OP_get_var_ref:
            if (fd->closure_var[get_u16(bc + pos + 1)].is_lexical)
                goto done;
            continue;
        default: continue;
        }
        if (idx < fd->var_count && may_uninit[idx])
            goto done;
    }
    in = js_malloc_rt(rt, sizeof(*in) * len);
    seen = js_mallocz_rt(rt, len);
    work = js_malloc_rt(rt, sizeof(*work) * len);
    if (!in || !seen || !work)
        goto done;
    in[0] = 0;
    seen[0] = 3;
    work[nwork++] = 0;
    while (nwork > 0) {
        pos = work[--nwork];
        seen[pos] &= ~2;
        st = in[pos];
        op = bc[pos];
        next = pos + opcode_info[op].size;
        switch (op) { /* the state after the instruction */
        case OP_set_loc_uninitialized:
            if ((k = bit[get_u16(bc + pos + 1)]) >= 0)
                st &= ~((uint64_t)1 << k);
            break;
        case OP_put_loc: case OP_set_loc: case OP_get_loc_check: case OP_put_loc_check: case OP_put_loc_check_init:
            if ((k = bit[get_u16(bc + pos + 1)]) >= 0)
                st |= (uint64_t)1 << k; /* after a check, the local is initialized (or it threw) */
            break;
        }
        nsucc = 0;
        switch (op) { /* where it goes, as compute_stack_size walks it */
        case OP_tail_call: case OP_tail_call_method: case OP_return: case OP_return_undef:
        case OP_return_async: case OP_throw: case OP_throw_error:
            break;
        case OP_goto: succ[nsucc++] = MEP_TDZ_LABEL(pos); break;
        case OP_if_true: case OP_if_false:
            succ[nsucc++] = next;
            succ[nsucc++] = MEP_TDZ_LABEL(pos);
            break;
        case OP_catch: /* the handler: nothing known */
            k = MEP_TDZ_LABEL(pos);
            if ((unsigned)k >= (unsigned)len)
                goto done;
            if (!(seen[k] & 1) || in[k] != 0) {
                in[k] = 0;
                if (!(seen[k] & 2))
                    work[nwork++] = k;
                seen[k] = 3;
            }
            succ[nsucc++] = next;
            break;
        default:
            succ[nsucc++] = next;
            break;
        }
        for (k = 0; k < nsucc; k++) {
            int to = succ[k];
            if ((unsigned)to >= (unsigned)len)
                goto done; /* not a function this analysis understands */
            if (!(seen[to] & 1)) {
                in[to] = st;
            } else if ((in[to] & st) != in[to]) {
                in[to] &= st;
            } else {
                continue;
            }
            if (!(seen[to] & 2))
                work[nwork++] = to;
            seen[to] = 3;
        }
    }
    for (pos = 0; pos < len; pos += opcode_info[op].size) {
        op = bc[pos];
        if ((op == OP_get_loc_check || op == OP_put_loc_check) && (seen[pos] & 1) &&
            (k = bit[get_u16(bc + pos + 1)]) >= 0 && ((in[pos] >> k) & 1))
            bc[pos] = op == OP_get_loc_check ? OP_get_loc : OP_put_loc;
    }
 done:
    js_free_rt(rt, work);
    js_free_rt(rt, seen);
    js_free_rt(rt, in);
    js_free_rt(rt, may_uninit);
    js_free_rt(rt, bit);
}`;

export const TDZ_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue js_create_function(JSContext *ctx, JSFunctionDef *fd)' },
    op: 'before',
    text: ANALYSIS,
    why: 'the analysis that proves TDZ checks passed (see the edit below)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'if (resolve_labels(ctx, fd))' },
    op: 'before',
    text: '    mep_tdz_elide(ctx, fd); /* mep engine: checks proven passed become plain reads and writes */',
    why:
      'read and assign a `let`/`const` local without its TDZ test where every path initializes it first: the lint\'s ' +
      'SHA-256 rounds read such locals 3.76 M times, each a get_loc_check. Before resolve_labels, so that its peephole ' +
      'forms apply to them as to a var\'s (`x = y;` as put_loc, not dup put_loc drop; `i++` as inc_loc; the short ' +
      'opcodes); after it, a proven `let` kept the long form of a checked access',
  },
];
