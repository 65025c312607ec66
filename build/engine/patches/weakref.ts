/**
 * WeakRef keeps its target alive for the rest of the job, as the standard says (AddToKeptObjects
 * in the WeakRef constructor and in deref): quickjs-ng 0.17.0 freed a target nothing else held at
 * once, so `new WeakRef({}).deref()` gave undefined where V8 gives the object, a silent difference
 * between the wasm and process runtimes (build/engine/engine.test.ts checks it against V8). The
 * kept objects are let go when the next exported call begins (mep_clear_kept, called by the glue's
 * mep_host_begin_call): later than the job's end, which the standard allows.
 */
import type { QuickjsPatch } from './types.ts';

export const WEAKREF_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'static JSValue js_weakref_constructor(JSContext *ctx, JSValueConst new_target,' },
    op: 'before',
    text: String.raw`/* mep engine: the objects kept alive for WeakRefs until mep_clear_kept (KeepDuringJob) */
static JSValue mep_kept;
static JSContext *mep_kept_ctx; /* NULL while the list is empty */
static uint32_t mep_kept_len;

static void mep_keep(JSContext *ctx, JSValueConst obj)
{
    if (mep_kept_ctx == NULL) {
        mep_kept = JS_NewArray(ctx);
        if (JS_IsException(mep_kept)) {
            JS_FreeValue(ctx, JS_GetException(ctx)); /* out of memory: the target is only held weakly */
            return;
        }
        mep_kept_ctx = ctx;
    }
    if (JS_SetPropertyUint32(ctx, mep_kept, mep_kept_len, js_dup(obj)) < 0)
        JS_FreeValue(ctx, JS_GetException(ctx)); /* likewise */
    else
        mep_kept_len++;
}

/* lets go of what mep_keep kept (the glue calls it as each exported call begins) */
void mep_clear_kept(void)
{
    if (mep_kept_ctx != NULL) {
        JS_FreeValue(mep_kept_ctx, mep_kept);
        mep_kept_ctx = NULL;
        mep_kept_len = 0;
    }
}
`,
    why: 'where WeakRef targets are kept for the rest of the job, and the glue\'s way to let them go',
  },
  {
    file: 'quickjs.c',
    at: { line: 'insert_weakref_record(arg, wr);', near: 'static JSValue js_weakref_constructor(JSContext *ctx, JSValueConst new_target,' },
    op: 'after',
    text: '    mep_keep(ctx, arg); /* mep engine: AddToKeptObjects */',
    why: 'the WeakRef constructor keeps its target alive for the rest of the job',
  },
  {
    file: 'quickjs.c',
    at: { line: 'return js_dup(wrd->target);', near: 'static JSValue js_weakref_deref(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)' },
    op: 'before',
    text: '    mep_keep(ctx, wrd->target); /* mep engine: AddToKeptObjects */',
    why: 'WeakRef.prototype.deref keeps what it returns alive for the rest of the job',
  },
];
