/**
 * The callee run in the caller's interpreter loop (issue 32). A call from `OP_call`,
 * `OP_call_method` or their tail forms to a plain bytecode function (not a generator nor an async
 * function: those keep quickjs-ng's frames) no longer enters JS_CallInternal as a new C frame: the
 * loop saves its registers into a frame taken from a per-runtime stack of frames
 * (`rt->mep_frames`), sets them up for the callee as JS_CallInternal's prologue would, and goes
 * on dispatching; the callee's return (or an exception it does not catch) frees its frame as
 * JS_CallInternal's exit does, gives the caller its registers back and goes on in the caller.
 * When the stack of frames is full (deep recursion) the call takes the C path as before, so the
 * C stack's limit still turns infinite recursion into a catchable RangeError. Measured with
 * callgrind on the native build (bench/callgrind.bench.ts); the commit names the figures.
 */
import type { QuickjsPatch } from './types.ts';

/** The bytes of each runtime's stack of in-loop frames (allocated at its first such call). */
export const MEP_FRAMES_BYTES = 32 * 1024;

const DECLARATIONS = String.raw`/* mep engine: a callee's frame run in its caller's interpreter loop (patches/frames.ts): the
   caller's registers while the callee runs, the callee's JSStackFrame, then its locals */
typedef struct MepFrame {
    struct MepFrame *up; /* the caller's own in-loop frame, NULL if the caller is the C frame's */
    JSContext *caller_ctx, *ctx;
    JSValueConst func_obj, this_obj, new_target, *argv;
    int argc, kind, call_argc; /* kind: 1 a call, 2 a method call, | 4 a tail call */
    JSFunctionBytecode *b;
    JSObject *p;
    JSStackFrame *sf;
    uint8_t *pc;
    JSValue *sp, *local_buf, *stack_buf, *var_buf, *arg_buf;
    JSVarRef **var_refs;
    JSStackFrame own;
    JSValue locals[];
} MepFrame;

static bool mep_frames_alloc(JSRuntime *rt)
{
    rt->mep_frames = js_malloc_rt(rt, ${MEP_FRAMES_BYTES});
    if (!rt->mep_frames)
        return false;
    rt->mep_frames_top = rt->mep_frames;
    rt->mep_frames_end = rt->mep_frames + ${MEP_FRAMES_BYTES};
    return true;
}

/* the frame for a call of f with argc arguments run in the caller's loop, or NULL: f is not a
   plain bytecode function, or the stack of frames has no room (the call takes the C path) */
static inline __attribute__((always_inline)) MepFrame *mep_frame_new(JSRuntime *rt, JSValueConst f, int argc)
{
    JSFunctionBytecode *fb;
    size_t need;
    uint8_t *top;
    if (JS_VALUE_GET_TAG(f) != JS_TAG_OBJECT || JS_VALUE_GET_OBJ(f)->class_id != JS_CLASS_BYTECODE_FUNCTION)
        return NULL;
    fb = JS_VALUE_GET_OBJ(f)->u.func.function_bytecode;
    if (fb->func_kind != JS_FUNC_NORMAL)
        return NULL;
    need = sizeof(MepFrame) + sizeof(JSValue) * ((argc < fb->arg_count ? fb->arg_count : 0) + fb->var_count + fb->stack_size) +
           sizeof(JSVarRef *) * fb->var_ref_count;
    need = (need + 15) & ~(size_t)15;
    top = rt->mep_frames_top;
    if (unlikely(!top)) {
        if (!mep_frames_alloc(rt))
            return NULL;
        top = rt->mep_frames_top;
    }
    if (unlikely(need > (size_t)(rt->mep_frames_end - top)))
        return NULL;
    rt->mep_frames_top = top + need;
    return (MepFrame *)top;
}`;

/** The interpreter's call sites and what each passes as `this`. */
const SITES = [
  {
    line: 'ret_val = mep_call(ctx, call_argv[-1], JS_UNDEFINED, /* mep engine */',
    near: 'CASE(OP_tail_call):',
    thisValue: 'JS_UNDEFINED',
    kind: '(opcode == OP_tail_call ? 5 : 1)',
    what: 'OP_call/OP_tail_call',
  },
  {
    line: 'ret_val = mep_call(ctx, call_argv[-1], call_argv[-2], /* mep engine */',
    near: 'CASE(OP_tail_call_method):',
    thisValue: 'call_argv[-2]',
    kind: '(opcode == OP_tail_call_method ? 6 : 2)',
    what: 'OP_call_method/OP_tail_call_method',
  },
] as const;

/** The callee's set-up, reached by a goto from a call site with the new frame in mep_nf. */
const ENTER = String.raw`    /* mep engine: enter a callee in this loop (patches/frames.ts): the caller's registers into
       its frame, the callee's set up as the prologue above does (its JSStackFrame in the frame) */
 mep_enter:
    if (js_poll_interrupts(ctx)) {
        rt->mep_frames_top = (uint8_t *)mep_nf;
        goto exception;
    }
    mep_nf->up = mep_cur;
    mep_nf->caller_ctx = caller_ctx;
    mep_nf->ctx = ctx;
    mep_nf->func_obj = func_obj;
    mep_nf->this_obj = this_obj;
    mep_nf->new_target = new_target;
    mep_nf->argv = argv;
    mep_nf->argc = argc;
    mep_nf->kind = mep_kind;
    mep_nf->call_argc = mep_argc;
    mep_nf->b = b;
    mep_nf->p = p;
    mep_nf->sf = sf;
    mep_nf->pc = pc;
    mep_nf->sp = sp;
    mep_nf->local_buf = local_buf;
    mep_nf->stack_buf = stack_buf;
    mep_nf->var_buf = var_buf;
    mep_nf->arg_buf = arg_buf;
    mep_nf->var_refs = var_refs;
    mep_cur = mep_nf;
    caller_ctx = ctx;
    func_obj = mep_argv[-1];
    this_obj = mep_this;
    new_target = JS_UNDEFINED;
    argc = mep_argc;
    argv = mep_argv;
    p = JS_VALUE_GET_OBJ(func_obj);
    b = p->u.func.function_bytecode;
    var_refs = p->u.func.var_refs;
    local_buf = mep_nf->locals;
    sf = &mep_nf->own;
    sf->cur_func = unsafe_unconst(func_obj);
    sf->is_constructor = false;
    sf->is_strict_mode = b->is_strict_mode;
    sf->arg_count = argc;
    arg_buf = (JSValue *)argv;
    if (unlikely(argc < b->arg_count)) {
        arg_buf = local_buf;
        for (i = 0; i < argc; i++)
            arg_buf[i] = js_dup(argv[i]);
        for (; i < b->arg_count; i++)
            arg_buf[i] = JS_UNDEFINED;
        sf->arg_count = b->arg_count;
        var_buf = local_buf + b->arg_count;
    } else {
        var_buf = local_buf;
    }
    sf->var_buf = var_buf;
    sf->arg_buf = arg_buf;
    for (i = 0; i < b->var_count; i++)
        var_buf[i] = JS_UNDEFINED;
    stack_buf = var_buf + b->var_count;
    sp = stack_buf;
    sf->var_ref_count = b->var_ref_count;
    sf->var_refs = (JSVarRef **)(stack_buf + b->stack_size);
    for (i = 0; i < b->var_ref_count; i++)
        sf->var_refs[i] = NULL;
    pc = b->byte_code_buf;
    sf->cur_gc_obj = NULL; /* a frame of no coroutine */
    sf->prev_frame = rt->current_stack_frame;
    sf->cur_pc = NULL;
    rt->current_stack_frame = sf;
    ctx = b->realm;
    goto restart;`;

/** After the callee's frame is freed: back to the caller's registers, on in the caller. */
const LEAVE = String.raw`    if (mep_cur) { /* mep engine: a callee run in this loop returns to its caller (patches/frames.ts) */
        MepFrame *mep_of = mep_cur;
        int mep_n = mep_of->kind & 3;
        mep_cur = mep_of->up;
        caller_ctx = mep_of->caller_ctx;
        ctx = mep_of->ctx;
        func_obj = mep_of->func_obj;
        this_obj = mep_of->this_obj;
        new_target = mep_of->new_target;
        argv = mep_of->argv;
        argc = mep_of->argc;
        b = mep_of->b;
        p = mep_of->p;
        sf = mep_of->sf;
        pc = mep_of->pc;
        sp = mep_of->sp;
        local_buf = mep_of->local_buf;
        stack_buf = mep_of->stack_buf;
        var_buf = mep_of->var_buf;
        arg_buf = mep_of->arg_buf;
        var_refs = mep_of->var_refs;
        rt->mep_frames_top = (uint8_t *)mep_of;
        if (unlikely(JS_IsException(ret_val)))
            goto exception;
        if (mep_of->kind & 4)
            goto done;
        for (pval = sp - mep_of->call_argc - mep_n; pval < sp; pval++)
            JS_FreeValue(ctx, *pval);
        sp -= mep_of->call_argc + mep_n;
        *sp++ = ret_val;
        goto restart;
    }`;

export const FRAME_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'const char *rt_info;', near: 'struct JSRuntime {' },
    op: 'after',
    text: '    uint8_t *mep_frames, *mep_frames_top, *mep_frames_end; /* mep engine: patches/frames.ts */',
    why: 'the runtime\'s stack of frames of callees run in their caller\'s interpreter loop',
  },
  {
    file: 'quickjs.c',
    at: { line: 'rt->in_free = true;', near: 'void JS_FreeRuntime(JSRuntime *rt)' },
    op: 'after',
    text: '    js_free_rt(rt, rt->mep_frames); /* mep engine: patches/frames.ts (no frame is in use here) */',
    why: 'free the stack of in-loop frames with the runtime',
  },
  {
    file: 'quickjs.c',
    at: { line: '/* mep engine: a call from the interpreter to a built-in (a C function) goes straight to' },
    op: 'before',
    text: DECLARATIONS,
    why: 'the frame of a callee run in its caller\'s loop and the test that takes one',
  },
  {
    file: 'quickjs.c',
    at: { line: 'size_t alloca_size;', near: 'JSStackFrame sf_s, *sf = &sf_s;' },
    op: 'after',
    text:
      '    MepFrame *mep_cur = NULL, *mep_nf; /* mep engine: the running frame if run in this loop; a new one */\n' +
      '    JSValue *mep_argv, mep_this; /* mep engine: the call entering mep_nf */\n' +
      '    int mep_argc, mep_kind;',
    why: 'the registers of the in-loop calls',
  },
  ...SITES.map(
    ({ line, near, thisValue, kind, what }): QuickjsPatch => ({
      file: 'quickjs.c',
      at: { line, near },
      op: 'before',
      text:
        `                if ((mep_nf = mep_frame_new(rt, call_argv[-1], call_argc)) != NULL) { /* mep engine: run it in this loop */\n` +
        `                    mep_this = ${thisValue};\n` +
        `                    mep_kind = ${kind};\n` +
        '                    mep_argc = call_argc;\n' +
        '                    mep_argv = call_argv;\n' +
        '                    goto mep_enter;\n' +
        '                }',
      why:
        `run a plain bytecode function called from ${what} in this loop instead of a new C frame of JS_CallInternal ` +
        '(its prologue saved registers, spilled, tested the stack and set up an alloca frame: about 150 instructions ' +
        'a call, 792,000 calls in the GraphQL workload)',
    }),
  ),
  {
    file: 'quickjs.c',
    at: { line: 'exception:', near: 'JS_ThrowInternalError(ctx, "invalid opcode: pc=%u opcode=0x%02x",' },
    op: 'before',
    text: ENTER,
    why: 'set up the callee of an in-loop call (reached only by its goto)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'rt->current_stack_frame = sf->prev_frame;', near: '/* free the local variables and stack */' },
    op: 'after',
    text: LEAVE,
    why: 'return from a callee run in this loop to its caller, or unwind into the caller on an exception',
  },
];
