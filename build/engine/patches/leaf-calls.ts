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

/** The operations the leaf evaluator does, each with the opcodes it covers (the rest: OTHER). */
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
const opEntries = (value: (kind: string) => string): string =>
  LEAF_KINDS.flatMap(([kind, ops]) => ops.map((op) => `[OP_${op}] = ${value(kind)}`)).join(', ');
/** The dense numbering of the operations and the opcode-to-operation table (for the switch). */
const LEAF_TABLES =
  `/* the operations evaluated, numbered densely so that the switch below is one table jump */\n` +
  `enum { ${LEAF_KINDS.map(([k]) => `MEP_LEAF_${k}`).join(', ')} };\n` +
  `static const uint8_t mep_leaf_op[256] = { ${opEntries((k) => `MEP_LEAF_${k}`)} };`;
/** The opcode-to-label table of the direct dispatch (GNU C: the rest of the range goes to OTHER). */
const LEAF_LABELS = `static const void *const mep_leaf_labels[256] = { [0 ... 255] = &&mep_leaf_OTHER, ${opEntries((k) => `&&mep_leaf_${k}`)} };`;

export const LEAF_CALL_PATCHES: readonly QuickjsPatch[] = [
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
   is made as usual, so the result and every effect are the interpreter's. */
#define MEP_LEAF_STACK 8
#define MEP_LEAF_ARGS 8 /* more arguments: declined */
${LEAF_TABLES}
static no_inline int32_t mep_leaf_double_int32(JSContext *ctx, JSValueConst v)
{
    int32_t r;
    double d = JS_VALUE_GET_FLOAT64(v);
    if (d > -9.2e18 && d < 9.2e18) /* ToInt32: truncation, then modulo 2^32 */
        return (int32_t)(uint32_t)(uint64_t)(int64_t)d;
    JS_ToInt32(ctx, &r, v); /* NaN, an infinity or a huge double: cannot fail on a number */
    return r;
}

/* The stack holds int64s: an int32 value as itself, a >>> result past INT32_MAX as itself (a
   uint32), and an argument that is a double as the ToInt32 of it (its low 32 bits) plus
   MEP_LEAF_BITS, which only the bitwise operators take (they read the low 32 bits, as ToInt32 of
   any of the three gives): + - and return decline a value that is not an int32. */
#define MEP_LEAF_BITS ((int64_t)1 << 40)
static bool mep_leaf_call(JSContext *ctx, JSValueConst func_obj, int argc, JSValueConst *argv, JSValue *pret)
{
    JSObject *p;
    JSFunctionBytecode *b;
    const uint8_t *pc;
    int64_t st[MEP_LEAF_STACK], *sp = st, r, args[MEP_LEAF_ARGS];
    int op, i;
    JSValue v;

    /* the caller (OP_call) has tested that func_obj is a bytecode function not declined before */
    p = JS_VALUE_GET_OBJ(func_obj);
    b = p->u.func.function_bytecode;
    if (b->func_kind != JS_FUNC_NORMAL || argc < b->arg_count || argc > MEP_LEAF_ARGS || b->stack_size > MEP_LEAF_STACK)
        goto decline;
    /* every argument, read or not, a number: the caller then frees none of them */
    for (i = 0; i < argc; i++) {
        v = argv[i];
        if (likely(JS_VALUE_GET_TAG(v) == JS_TAG_INT))
            args[i] = JS_VALUE_GET_INT(v);
        else if (JS_TAG_IS_FLOAT64(JS_VALUE_GET_TAG(v)))
            args[i] = (uint32_t)mep_leaf_double_int32(ctx, v) | MEP_LEAF_BITS;
        else
            goto decline;
    }
    pc = b->byte_code_buf;
#if DIRECT_DISPATCH /* as the interpreter: a jump through a table of labels, else a switch */
    ${LEAF_LABELS}
#define MEP_LEAF(kind) mep_leaf_##kind:
#define MEP_LEAF_NEXT goto *mep_leaf_labels[op = *pc++]
    MEP_LEAF_NEXT;
    {
        {
#else
#define MEP_LEAF(kind) case MEP_LEAF_##kind:
#define MEP_LEAF_NEXT break
    for (;;) {
        op = *pc++;
        switch (mep_leaf_op[op]) {
#endif
        MEP_LEAF(ARG_N)
            *sp++ = args[op - OP_get_arg0];
            MEP_LEAF_NEXT;
        MEP_LEAF(ARG)
            *sp++ = args[get_u16(pc)];
            pc += 2;
            MEP_LEAF_NEXT;
        MEP_LEAF(PUSH_N)
            *sp++ = op - OP_push_0;
            MEP_LEAF_NEXT;
        MEP_LEAF(PUSH_I8)
            *sp++ = get_i8(pc);
            pc += 1;
            MEP_LEAF_NEXT;
        MEP_LEAF(PUSH_I16)
            *sp++ = get_i16(pc);
            pc += 2;
            MEP_LEAF_NEXT;
        MEP_LEAF(PUSH_I32)
            *sp++ = (int32_t)get_u32(pc);
            pc += 4;
            MEP_LEAF_NEXT;
        MEP_LEAF(NOT)
            sp[-1] = ~(int32_t)sp[-1];
            MEP_LEAF_NEXT;
        MEP_LEAF(AND) sp--; sp[-1] = (int32_t)sp[-1] & (int32_t)sp[0]; MEP_LEAF_NEXT;
        MEP_LEAF(OR) sp--; sp[-1] = (int32_t)sp[-1] | (int32_t)sp[0]; MEP_LEAF_NEXT;
        MEP_LEAF(XOR) sp--; sp[-1] = (int32_t)sp[-1] ^ (int32_t)sp[0]; MEP_LEAF_NEXT;
        MEP_LEAF(SHL) sp--; sp[-1] = (int32_t)((uint32_t)sp[-1] << (sp[0] & 0x1f)); MEP_LEAF_NEXT;
        MEP_LEAF(SAR) sp--; sp[-1] = (int32_t)sp[-1] >> (sp[0] & 0x1f); MEP_LEAF_NEXT;
        MEP_LEAF(SHR) sp--; sp[-1] = (uint32_t)sp[-1] >> (sp[0] & 0x1f); MEP_LEAF_NEXT;
        MEP_LEAF(ADD)
        MEP_LEAF(SUB)
            if (sp[-2] != (int32_t)sp[-2] || sp[-1] != (int32_t)sp[-1])
                goto decline;
            r = op == OP_add ? sp[-2] + sp[-1] : sp[-2] - sp[-1];
            if (r != (int32_t)r)
                goto decline;
            sp--;
            sp[-1] = r;
            MEP_LEAF_NEXT;
        MEP_LEAF(RETURN)
            r = sp[-1];
            if (r == (int32_t)r)
                *pret = js_int32(r);
            else if (r >= 0 && r <= UINT32_MAX)
                *pret = js_float64(r);
            else
                goto decline;
            return true;
        MEP_LEAF(OTHER)
        decline: /* not tried again: a function once declined is called as usual from then on */
            b->mep_not_leaf = 1;
            return false;
        }
    }
#undef MEP_LEAF
#undef MEP_LEAF_NEXT
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
