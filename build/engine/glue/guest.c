/*
 * Entry points of a built guest (build/guest/link.ts generates the wasm around them):
 * `mep_guest_init` runs once inside the wizer snapshot with the bundle's bytecode and export
 * names; `mep_call_export(i)` backs each Extism export `() -> i32`.
 *
 * Blob layout: [u32 LE bytecode length][bytecode][export names, each followed by a NUL].
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "platform.h"

/* Timers the module's top level may run during initialization before it counts as runaway. */
#define MEP_INIT_MAX_TIMERS 100000

/* patches/alloc.ts: while set, small blocks of every size class are carved from one chunk */
extern int mep_arena_shared_carve;

static JSValue *exports_fn;
static uint32_t exports_count;

static char *dup_text(const char *s) {
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

static char *pending_exception(JSContext *ctx) {
  size_t n;
  return mep_exception_text(ctx, &n);
}

/* Evaluates the bundle and binds the exports. Returns 0, or a malloc'd NUL-terminated message. */
MEP_EXPORT("mep_guest_init") char *mep_guest_init(uint8_t *blob, uint32_t blob_len) {
  uint32_t bc_len;
  if (blob_len < 4) return dup_text("mep guest: the bytecode blob is truncated");
  memcpy(&bc_len, blob, 4);
  if (bc_len > blob_len - 4) return dup_text("mep guest: the bytecode blob is truncated");
  /* What initialization leaves live is packed into as few pages as it fills: every instance
   * faults in each page the snapshot holds (patches/alloc.ts). */
  mep_arena_shared_carve = 1;
  mep_runtime_init();
  JSContext *ctx = mep_ctx;
  char *err = NULL;
  mep_initializing = 1;
  JSValue obj = JS_ReadObject(ctx, blob + 4, bc_len, JS_READ_OBJ_BYTECODE);
  if (JS_IsException(obj)) {
    err = pending_exception(ctx);
    goto done;
  }
  JSValue ret = JS_EvalFunction(ctx, obj);
  /* Timers the top level starts run now, in virtual time, as a module's would before its first use. */
  if (JS_IsException(ret) || (JS_FreeValue(ctx, ret), mep_event_loop_drain(ctx, MEP_INIT_MAX_TIMERS))) {
    err = pending_exception(ctx);
    goto done;
  }
  JSValue global = JS_GetGlobalObject(ctx);
  JSValue holder = JS_GetPropertyStr(ctx, global, "__mep_exports");
  JS_FreeValue(ctx, global);
  const char *p = (const char *)blob + 4 + bc_len, *end = (const char *)blob + blob_len;
  for (const char *q = p; q < end; q += strlen(q) + 1) exports_count++;
  exports_fn = calloc(exports_count ? exports_count : 1, sizeof(JSValue));
  for (uint32_t i = 0; p < end; p += strlen(p) + 1, i++) {
    JSValue fn = JS_IsObject(holder) ? JS_GetPropertyStr(ctx, holder, p) : JS_UNDEFINED;
    if (!JS_IsFunction(ctx, fn)) {
      JS_FreeValue(ctx, fn);
      JS_ThrowTypeError(ctx, "the entry module's export '%s' is not a function (Extism exports must be functions)", p);
      err = pending_exception(ctx);
      break;
    }
    exports_fn[i] = fn;
  }
  JS_FreeValue(ctx, holder);
done:
  /* Zero the blob and collect garbage so neither lingers in the snapshot's data. */
  memset(blob, 0, blob_len);
  free(blob);
  JS_MepDropShapeParents(mep_rt); /* patches/shapes.ts: the set-up's transitions are not kept in the snapshot */
  JS_RunGC(mep_rt);
  /* QuickJS raises its GC threshold only after a GC it triggered itself; the snapshot would keep
   * the initial 256 KiB, so every fresh instance would run a full collection of the whole heap
   * (zod's schemas, the extension's code) on its first request. Set it the way QuickJS would. */
  JS_SetGCThreshold(mep_rt, mep_gc_threshold(mep_heap_bytes()));
  JS_MepScrubArenas(mep_rt); /* patches/alloc.ts: the free small blocks, which malloc does not see */
  JS_MepScrubPropArrays(mep_rt); /* patches/property-arrays.ts: the free property arrays, likewise */
  mep_scrub_free_memory();
  mep_arena_shared_carve = 0; /* from here on only a heap's first chunks are carved by every class */
  mep_initializing = 0;
  return err;
}

/* Calls export number `index`; 0 on success (or the function's numeric return value), 1 after
 * reporting an exception through error_set. */
MEP_EXPORT("mep_call_export") int32_t mep_call_export(uint32_t index) {
  JSContext *ctx = mep_ctx;
  if (!ctx || index >= exports_count) {
    mep_report_error("mep guest: export called before initialization (the module was not snapshotted)");
    return 1;
  }
  mep_host_begin_call();
  JSValue ret = JS_Call(ctx, exports_fn[index], JS_UNDEFINED, 0, NULL);
  if (JS_IsException(ret) || mep_drain_jobs(ctx) || mep_settle(ctx, &ret)) {
    JS_FreeValue(ctx, ret);
    mep_report_exception(ctx);
    mep_event_loop_end(ctx);
    return 1;
  }
  /* The answer is ready: timers still pending are dropped, so every call starts with none. */
  mep_event_loop_end(ctx);
  int32_t rc = 0;
  if (JS_IsNumber(ret)) JS_ToInt32(ctx, &rc, ret);
  JS_FreeValue(ctx, ret);
  return rc;
}
