/**
 * Edits to JS-to-JS calls in the interpreter (JS_CallInternal). A call to a bytecode function
 * enters a new C frame of the 32 KB interpreter function (saving registers, `alloca`, the stack
 * and interrupt checks, the frame's fields) and leaves it again: about 190 instructions a call
 * before the callee's first bytecode, measured with callgrind on the native build
 * (bench/callgrind.bench.ts). Hash code calls tiny pure helpers hundreds of times a block
 * (@noble/hashes' SHA-256: `rotr`, `Chi`, `Maj`, 704 calls per 64 bytes).
 */
import type { QuickjsPatch } from './types.ts';

/** The bytecode-function bit that says a function is not a leaf (see the evaluator below). */
const NOT_LEAF_BIT = 'mep_not_leaf';

/** The operations the leaf compiler reads, each with the opcodes it covers (the rest: OTHER). */
const LEAF_KINDS: readonly (readonly [string, readonly string[]])[] = [
  ['OTHER', []],
  ['ARG_N', ['get_arg0', 'get_arg1', 'get_arg2', 'get_arg3']],
  ['ARG', ['get_arg']],
  ['PUSH_N', ['push_minus1', 'push_0', 'push_1', 'push_2', 'push_3', 'push_4', 'push_5', 'push_6', 'push_7']],
  ['PUSH_I8', ['push_i8']],
  ['PUSH_I16', ['push_i16']],
  ['PUSH_I32', ['push_i32']],
  ['NOT', ['not']],
  ['AND', ['and']],
  ['OR', ['or']],
  ['XOR', ['xor']],
  ['SHL', ['shl']],
  ['SAR', ['sar']],
  ['SHR', ['shr']],
  ['ADD', ['add']],
  ['SUB', ['sub']],
  ['RETURN', ['return']],
];
/** The operations of a compiled leaf: the binary ones in the order of LEAF_KINDS, then the rest. */
const LEAF_RUN_OPS = ['AND', 'OR', 'XOR', 'SHL', 'SAR', 'SHR', 'ADD', 'SUB', 'NOT', 'ROTR', 'RET'] as const;
const opEntries = (value: (kind: string) => string): string =>
  LEAF_KINDS.flatMap(([kind, ops]) => ops.map((op) => `[OP_${op}] = ${value(kind)}`)).join(', ');
/** The dense numbering of the opcodes read and of the compiled operations, and the opcode-to-kind table. */
const LEAF_TABLES =
  `enum { ${LEAF_KINDS.map(([k]) => `MEP_LEAF_${k}`).join(', ')} };\n` +
  `static const uint8_t mep_leaf_op[256] = { ${opEntries((k) => `MEP_LEAF_${k}`)} };\n` +
  `enum { ${LEAF_RUN_OPS.map((k) => `MEP_LR_${k}`).join(', ')} };`;
/** The operation-to-label table of the direct dispatch (GNU C). */
const LEAF_LABELS = `static const void *const mep_leaf_labels[] = { ${LEAF_RUN_OPS.map((k) => `&&mep_lr_${k}`).join(', ')} };`;

export const LEAF_CALL_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'uint8_t *pc2line_buf;', near: 'typedef struct JSFunctionBytecode {' },
    op: 'after',
    text: '    struct MepLeaf *mep_leaf; /* mep engine: the compiled leaf, made at its first call (patches/leaf-calls.ts) */',
    why: 'a leaf\'s three-address form, compiled once from its bytecode (never serialized: a function read back compiles it again)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'js_free_rt(rt, b->source);', near: 'static void free_function_bytecode(JSRuntime *rt, JSFunctionBytecode *b)' },
    op: 'after',
    text: '    if (b->mep_leaf) /* mep engine: the compiled leaf */\n        js_free_rt(rt, b->mep_leaf);',
    why: 'the compiled leaf goes with its function',
  },
  {
    file: 'quickjs.c',
    at: { line: 'uint8_t backtrace_barrier : 1; /* stop backtrace on this function */', near: 'typedef struct JSFunctionBytecode {' },
    op: 'after',
    text: `    uint8_t ${NOT_LEAF_BIT} : 1; /* mep engine: mep_leaf_call declined it once */`,
    why:
      'remember, per function, that the leaf evaluator below declined it (an operation it does not do, or an operand), so it is ' +
      'not tried again: Elm\'s compile made 580,000 calls the evaluator tried and declined on their operands (+1.6 %)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue JS_CallInternal(JSContext *caller_ctx, JSValueConst func_obj,' },
    op: 'before',
    text: String.raw`/* mep engine: a call to a small pure function of numbers (a leaf: only its own arguments,
   integer constants, the bitwise operators and + - on int32, one return, no jump) is evaluated
   here without entering a frame of the interpreter. The operations it evaluates have no side
   effect and cannot throw on numbers; on anything else (an operand that is not a number, an
   int32 overflow, an operation of another kind) it returns false before any effect, and the call
   is made as usual, so the result and every effect are the interpreter's.
   At its first such call the leaf's stack bytecode is compiled to three-address operations on a
   file of int64 registers (its arguments, its constants, then one register per operation): half
   the dispatches of the stack code, and a rotation written (x << (32 - s)) | (x >>> s), in either
   order, is one operation. */
#define MEP_LEAF_STACK 8
#define MEP_LEAF_ARGS 8 /* more arguments: declined */
#define MEP_LEAF_CONSTS 8
#define MEP_LEAF_OPS 32
#define MEP_LEAF_TMP (MEP_LEAF_ARGS + MEP_LEAF_CONSTS) /* the first register of an operation's result */
${LEAF_TABLES}
struct MepLeaf {
    int64_t consts[MEP_LEAF_CONSTS];
    uint8_t nconst;
    uint8_t code[4 * (MEP_LEAF_OPS + 1)]; /* each: operation, destination, two sources (registers) */
};
static no_inline int32_t mep_leaf_double_int32(JSContext *ctx, JSValueConst v)
{
    int32_t r;
    double d = JS_VALUE_GET_FLOAT64(v);
    if (d > -9.2e18 && d < 9.2e18) /* ToInt32: truncation, then modulo 2^32 */
        return (int32_t)(uint32_t)(uint64_t)(int64_t)d;
    JS_ToInt32(ctx, &r, v); /* NaN, an infinity or a huge double: cannot fail on a number */
    return r;
}

/* Folds the last four operations, ending at the OR just emitted at c - 4, into one rotation when
   they are u = 32 - s, p = x << u, q = x >>> s and p | q (the OR's sources in either order, the
   first three in any order: temporaries are read once, so nothing else reads u, p or q). */
static bool mep_leaf_rotation(struct MepLeaf *L, uint8_t *c)
{
    uint8_t *or = c - 4, *sub = NULL, *shl = NULL, *shr = NULL, *o;
    int k;
    if (c - 16 < L->code)
        return false;
    for (o = c - 16; o < or; o += 4) {
        if (o[0] == MEP_LR_SUB) sub = o;
        else if (o[0] == MEP_LR_SHL) shl = o;
        else if (o[0] == MEP_LR_SHR) shr = o;
    }
    if (!sub || !shl || !shr || shl[3] != sub[1] || shl[2] != shr[2] || sub[3] != shr[3] ||
        !((or[2] == shl[1] && or[3] == shr[1]) || (or[2] == shr[1] && or[3] == shl[1])))
        return false;
    k = sub[2] - MEP_LEAF_ARGS;
    if (k < 0 || k >= L->nconst || L->consts[k] != 32 || shr[2] >= MEP_LEAF_TMP || shr[3] >= MEP_LEAF_TMP)
        return false; /* x and s are read twice, so arguments or constants (a temporary is read once) */
    o = c - 16;
    o[0] = MEP_LR_ROTR; o[1] = or[1]; o[2] = shr[2]; o[3] = shr[3];
    if (k == L->nconst - 1) /* the 32, read by the SUB alone: not loaded at each call */
        L->nconst--;
    return true;
}

/* The compiled leaf, or NULL when the bytecode is not a leaf (or when out of memory): built on the C
   stack, so a function that is not a leaf costs no allocation. */
static no_inline struct MepLeaf *mep_leaf_compile(JSRuntime *rt, JSFunctionBytecode *b)
{
    const uint8_t *pc = b->byte_code_buf, *end = pc + b->byte_code_len;
    struct MepLeaf L, *out;
    uint8_t st[MEP_LEAF_STACK], *c = L.code;
    int n = 0, t = MEP_LEAF_TMP, op, kind, idx;
    int64_t imm;

    if (b->func_kind != JS_FUNC_NORMAL || b->arg_count > MEP_LEAF_ARGS)
        return NULL;
    L.nconst = 0;
    while (pc < end) {
        op = *pc++;
        switch (kind = mep_leaf_op[op]) {
        case MEP_LEAF_ARG_N: idx = op - OP_get_arg0; goto arg;
        case MEP_LEAF_ARG: idx = get_u16(pc); pc += 2;
        arg:
            if (idx >= b->arg_count || n == MEP_LEAF_STACK)
                return NULL;
            st[n++] = idx;
            break;
        case MEP_LEAF_PUSH_N: imm = op - OP_push_0; goto konst;
        case MEP_LEAF_PUSH_I8: imm = get_i8(pc); pc += 1; goto konst;
        case MEP_LEAF_PUSH_I16: imm = get_i16(pc); pc += 2; goto konst;
        case MEP_LEAF_PUSH_I32: imm = (int32_t)get_u32(pc); pc += 4;
        konst:
            if (L.nconst == MEP_LEAF_CONSTS || n == MEP_LEAF_STACK)
                return NULL;
            L.consts[L.nconst] = imm;
            st[n++] = MEP_LEAF_ARGS + L.nconst++;
            break;
        case MEP_LEAF_NOT:
            if (n < 1 || t == MEP_LEAF_TMP + MEP_LEAF_OPS)
                return NULL;
            c[0] = MEP_LR_NOT; c[1] = t; c[2] = c[3] = st[n - 1];
            c += 4;
            st[n - 1] = t++;
            break;
        case MEP_LEAF_RETURN:
            if (n < 1)
                return NULL;
            c[0] = MEP_LR_RET; c[1] = 0; c[2] = c[3] = st[n - 1];
            out = js_malloc_rt(rt, sizeof(L));
            if (out)
                memcpy(out, &L, sizeof(L));
            return out;
        case MEP_LEAF_OTHER:
            return NULL;
        default: /* AND .. SUB, numbered alike in both enums */
            if (n < 2 || t == MEP_LEAF_TMP + MEP_LEAF_OPS)
                return NULL;
            c[0] = MEP_LR_AND + kind - MEP_LEAF_AND; c[1] = t; c[2] = st[n - 2]; c[3] = st[n - 1];
            c += 4;
            st[--n - 1] = t++;
            if (c[-4] == MEP_LR_OR && mep_leaf_rotation(&L, c))
                c -= 12;
            break;
        }
    }
    return NULL;
}

/* The registers hold int64s: an int32 value as itself, a >>> result past INT32_MAX as itself (a
   uint32), and an argument that is a double as the ToInt32 of it (its low 32 bits) plus
   MEP_LEAF_BITS, which only the bitwise operators take (they read the low 32 bits, as ToInt32 of
   any of the three gives): + - (a rotation's 32 - s too) and return decline a value that is not an
   int32. */
#define MEP_LEAF_BITS ((int64_t)1 << 40)
static no_inline bool mep_leaf_call(JSContext *ctx, JSValueConst func_obj, int argc, JSValueConst *argv, JSValue *pret)
{
    JSFunctionBytecode *b = JS_VALUE_GET_OBJ(func_obj)->u.func.function_bytecode;
    const struct MepLeaf *L = b->mep_leaf;
    const uint8_t *c;
    int64_t R[MEP_LEAF_TMP + MEP_LEAF_OPS], x, y, r;
    int i;
    JSValue v;

    /* the caller (OP_call) has tested that func_obj is a bytecode function not declined before */
    if (unlikely(!L)) {
        L = b->mep_leaf = mep_leaf_compile(ctx->rt, b);
        if (!L)
            goto decline;
    }
    if (argc < b->arg_count || argc > MEP_LEAF_ARGS)
        goto decline;
    /* every argument, read or not, a number: the caller then frees none of them */
    for (i = 0; i < argc; i++) {
        v = argv[i];
        if (likely(JS_VALUE_GET_TAG(v) == JS_TAG_INT))
            R[i] = JS_VALUE_GET_INT(v);
        else if (JS_TAG_IS_FLOAT64(JS_VALUE_GET_TAG(v)))
            R[i] = (uint32_t)mep_leaf_double_int32(ctx, v) | MEP_LEAF_BITS;
        else
            goto decline;
    }
    for (i = 0; i < L->nconst; i++)
        R[MEP_LEAF_ARGS + i] = L->consts[i];
    c = L->code;
#if DIRECT_DISPATCH /* as the interpreter: a jump through a table of labels, else a switch */
    ${LEAF_LABELS}
#define MEP_LR(kind) mep_lr_##kind:
#define MEP_LR_NEXT c += 4; x = R[c[2]]; y = R[c[3]]; goto *mep_leaf_labels[c[0]]
    x = R[c[2]];
    y = R[c[3]];
    goto *mep_leaf_labels[c[0]];
    {
        {
#else
#define MEP_LR(kind) case MEP_LR_##kind:
#define MEP_LR_NEXT continue
    for (;; c += 4) {
        x = R[c[2]];
        y = R[c[3]];
        switch (c[0]) {
#endif
        MEP_LR(AND) R[c[1]] = (int32_t)x & (int32_t)y; MEP_LR_NEXT;
        MEP_LR(OR) R[c[1]] = (int32_t)x | (int32_t)y; MEP_LR_NEXT;
        MEP_LR(XOR) R[c[1]] = (int32_t)x ^ (int32_t)y; MEP_LR_NEXT;
        MEP_LR(SHL) R[c[1]] = (int32_t)((uint32_t)x << (y & 0x1f)); MEP_LR_NEXT;
        MEP_LR(SAR) R[c[1]] = (int32_t)x >> (y & 0x1f); MEP_LR_NEXT;
        MEP_LR(SHR) R[c[1]] = (uint32_t)x >> (y & 0x1f); MEP_LR_NEXT;
        MEP_LR(NOT) R[c[1]] = ~(int32_t)x; MEP_LR_NEXT;
        MEP_LR(ROTR) /* (x << (32 - y)) | (x >>> y), declining where 32 - y would */
            if (y != (int32_t)y || 32 - y != (int32_t)(32 - y))
                goto decline;
            R[c[1]] = (int32_t)(((uint32_t)x << ((32 - y) & 0x1f)) | ((uint32_t)x >> (y & 0x1f)));
            MEP_LR_NEXT;
        MEP_LR(ADD)
        MEP_LR(SUB)
            if (x != (int32_t)x || y != (int32_t)y)
                goto decline;
            r = c[0] == MEP_LR_ADD ? x + y : x - y;
            if (r != (int32_t)r)
                goto decline;
            R[c[1]] = r;
            MEP_LR_NEXT;
        MEP_LR(RET)
            if (x == (int32_t)x)
                *pret = js_int32(x);
            else if (x >= 0 && x <= UINT32_MAX)
                *pret = js_float64(x);
            else
                goto decline;
            return true;
        }
    }
#undef MEP_LR
#undef MEP_LR_NEXT
decline: /* not tried again: a function once declined is called as usual from then on */
    b->mep_not_leaf = 1;
    return false;
}`,
    why:
      'call a tiny pure function of numbers (@noble/hashes\' rotr, Chi, Maj) without a frame of the interpreter: each call ' +
      'cost about 190 instructions of frame set-up, argument freeing and return around a body of ten bytecodes',
  },
  {
    file: 'quickjs.c',
    at: { line: 'ret_val = JS_CallInternal(ctx, call_argv[-1], JS_UNDEFINED,', near: 'has_call_argc:' },
    op: 'before',
    text:
      '                if (JS_VALUE_GET_TAG(call_argv[-1]) == JS_TAG_OBJECT && /* mep engine: a leaf? */\n' +
      '                    JS_VALUE_GET_OBJ(call_argv[-1])->class_id == JS_CLASS_BYTECODE_FUNCTION &&\n' +
      `                    !JS_VALUE_GET_OBJ(call_argv[-1])->u.func.function_bytecode->${NOT_LEAF_BIT} &&\n` +
      '                    mep_leaf_call(ctx, call_argv[-1], call_argc, vc(call_argv), &ret_val)) {\n' +
      '                    /* every argument was a number (the evaluator declines on any other): only the function is freed */\n' +
      '                    if (opcode == OP_tail_call)\n' +
      '                        goto done;\n' +
      '                    JS_FreeValue(ctx, call_argv[-1]);\n' +
      '                    sp = call_argv;\n' +
      '                    sp[-1] = ret_val;\n' +
      '                    BREAK;\n' +
      '                }',
    why:
      'OP_call (a plain call, no `this`) tries the leaf evaluator above first; the call as usual when it declines. A ' +
      'function known not to be a leaf is told inline, without a call (a call per JS call cost Elm\'s compile 1.9 %). ' +
      'The evaluator takes only numbers as arguments, so a leaf call frees the function alone, not each argument ' +
      '(the loop over the arguments cost the lint 33 instructions a call)',
  },
];
