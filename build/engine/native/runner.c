/*
 * A native host for the engine's quickjs-ng (the same fetched sources, with the same edits as the
 * wasm engine), for measuring what the sandbox costs: it runs one JS file as a global script
 * with quickjs-libc's helpers (print, console.log, scriptArgs) and readText(path) (a file's UTF-8
 * text), then the job queue and timers until they are empty. Exit code 1 when the script throws.
 * Not part of any guest.
 *
 *   runner FILE [ARGS...]
 *
 * For out-of-memory tests (build/engine/heap-faults.test.ts), two environment variables:
 *   MEP_FAIL_AT=N       the runtime's allocator fails its Nth request (malloc, calloc or realloc)
 *                       and every one after, as memory at its cap does (the engine's small blocks
 *                       still come off its free lists); at the end the runner collects cycles,
 *                       which checks every reference count, and prints "allocs: COUNT" to stderr;
 *   MEP_FAIL_COUNT=K    with MEP_FAIL_AT: only K requests fail, then they succeed again, as when
 *                       a collection made room;
 *   MEP_GC_STEP=B       the engine's edits only: the collector runs whenever the heap grew B bytes
 *                       since the last collection (the glue's threshold hook), so collections meet
 *                       the failures;
 *   MEP_MEMORY_LIMIT=B  quickjs-ng's own limit (JS_SetMemoryLimit), in bytes.
 *   MEP_HELD=1          the engine's edits only: the collector keeps the engine's own thresholds
 *                       (mep_gc_grown, patches/runtime.ts), and at the end the runner prints
 *                       "held: BYTES at most" and "collections: N" to stderr: the peak the
 *                       wasm guest's memory follows (its garbage between collections included).
 * With MEP_GC_STEP, at the end the runner prints "gc peak: BYTES" to stderr: the most the heap
 * held just after a collection (quickjs-ng's count), i.e. the peak of live data to within B; and
 * "held: BYTES at the gc peak, BYTES at most": what the runtime's allocator had handed out then
 * (malloc_usable_size of its blocks: the engine's chunks of small blocks with their free lists,
 * and its large blocks), and the most it ever had.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include "quickjs.h"
#include "quickjs-libc.h"

/* readText(path): the file's text, or a TypeError naming it. */
static size_t alloc_count, fail_at;

static JSValue read_text(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  if (getenv("MEP_FAIL_AT")) fprintf(stderr, "readText at alloc %zu\n", alloc_count);
  const char *path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  size_t len;
  uint8_t *buf = js_load_file(ctx, &len, path);
  JSValue r = buf ? JS_NewStringLen(ctx, (const char *)buf, len) : JS_ThrowTypeError(ctx, "readText: cannot read %s", path);
  if (buf) js_free(ctx, buf);
  JS_FreeCString(ctx, path);
  return r;
}

/* MEP_FAIL_AT: the allocator's requests so far (alloc_count), and the first to fail (fail_at, 0: none). */

static size_t fail_count = SIZE_MAX, gc_step;

static JSRuntime *failing_rt;

/* A failed request also asks for a collection at the next object made (often the error that
 * reports it), as the wasm glue does when memory reaches its cap (glue/memory.c). */
static int failing(void) {
  if (++alloc_count < fail_at || fail_at == 0 || alloc_count - fail_at >= fail_count) return 0;
  if (failing_rt) JS_SetGCThreshold(failing_rt, 0);
  return 1;
}

/* The engine's threshold hook (patches/runtime.ts), absent from quickjs-ng without the edits. */
extern size_t (*mep_gc_next_threshold)(size_t heap) __attribute__((weak));
extern size_t mep_gc_grown(size_t heap) __attribute__((weak));
static size_t gc_peak, stage_peak, stage_held, collections;
/* What the allocator below has handed out (usable sizes), the most ever, and that at the gc peak. */
static size_t held, held_max, held_at_peak;
static size_t gc_every_step(size_t heap) {
  collections++;
  if (heap > gc_peak) gc_peak = heap, held_at_peak = held;
  if (heap > stage_peak) stage_peak = heap, stage_held = held;
  return gc_step ? heap + gc_step : mep_gc_grown(heap);
}
static void *counted(void *p) {
  if (p && (held += malloc_usable_size(p)) > held_max) held_max = held;
  return p;
}
static void *fail_calloc(void *opaque, size_t count, size_t size) { return failing() ? NULL : counted(calloc(count, size)); }
static void *fail_malloc(void *opaque, size_t size) { return failing() ? NULL : counted(malloc(size)); }
static void fail_free(void *opaque, void *ptr) {
  if (ptr) held -= malloc_usable_size(ptr);
  free(ptr);
}
static void *fail_realloc(void *opaque, void *ptr, size_t size) {
  if (size != 0 && failing()) return NULL;
  size_t before = ptr ? malloc_usable_size(ptr) : 0;
  void *p = realloc(ptr, size);
  if (p || size == 0) {
    held -= before;
    counted(p);
  }
  return p;
}
static size_t fail_usable_size(const void *ptr) { return malloc_usable_size((void *)ptr); }
static const JSMallocFunctions fail_functions = {fail_calloc, fail_malloc, fail_free, fail_realloc, fail_usable_size};

/* gcStats(): with MEP_GC_STEP, "gc peak BYTES held BYTES" since the last call (or the start), then
 * starts over: a script's stages can each report the peak of live data they reached. */
static JSValue gc_stats(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  char text[96];
  snprintf(text, sizeof text, "gc peak %zu held %zu", stage_peak, stage_held);
  stage_peak = stage_held = 0;
  return JS_NewString(ctx, text);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [ARGS...]\n", argv[0]);
    return 2;
  }
  const char *fail_env = getenv("MEP_FAIL_AT"), *limit_env = getenv("MEP_MEMORY_LIMIT");
  fail_at = fail_env ? strtoull(fail_env, NULL, 10) : 0;
  int held_only = getenv("MEP_HELD") && &mep_gc_grown && !getenv("MEP_GC_STEP");
  JSRuntime *rt = fail_env || getenv("MEP_GC_STEP") || held_only ? JS_NewRuntime2(&fail_functions, NULL) : JS_NewRuntime();
  if (!rt) return 1;
  failing_rt = fail_env ? rt : NULL;
  if (limit_env) JS_SetMemoryLimit(rt, strtoull(limit_env, NULL, 10));
  if (getenv("MEP_FAIL_COUNT")) fail_count = strtoull(getenv("MEP_FAIL_COUNT"), NULL, 10);
  if (getenv("MEP_GC_STEP") && &mep_gc_next_threshold) {
    gc_step = strtoull(getenv("MEP_GC_STEP"), NULL, 10);
    mep_gc_next_threshold = gc_every_step;
    JS_SetGCThreshold(rt, gc_step);
  }
  if (held_only) mep_gc_next_threshold = gc_every_step;
  js_std_init_handlers(rt);
  JSContext *ctx = JS_NewContext(rt);
  if (!ctx) return 1;
  js_std_add_helpers(ctx, argc - 1, argv + 1);
  JSValue global = JS_GetGlobalObject(ctx);
  JS_SetPropertyStr(ctx, global, "readText", JS_NewCFunction(ctx, read_text, "readText", 1));
  JS_SetPropertyStr(ctx, global, "gcStats", JS_NewCFunction(ctx, gc_stats, "gcStats", 0));
  JS_FreeValue(ctx, global);
  size_t len;
  uint8_t *buf = js_load_file(ctx, &len, argv[1]);
  if (!buf) {
    fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
    return 2;
  }
  int status = 0;
  JSValue val = JS_Eval(ctx, (const char *)buf, len, argv[1], JS_EVAL_TYPE_GLOBAL);
  js_free(ctx, buf);
  if (JS_IsException(val)) {
    js_std_dump_error(ctx);
    status = 1;
  } else if (js_std_loop(ctx) != 0) {
    js_std_dump_error(ctx);
    status = 1;
  }
  JS_FreeValue(ctx, val);
  if (fail_env) {
    JS_RunGC(rt);
    fprintf(stderr, "allocs: %zu\n", alloc_count);
  }
  if (held_only) fprintf(stderr, "held: %zu at most\ncollections: %zu\n", held_max, collections);
  if (gc_step) fprintf(stderr, "gc peak: %zu\nheld: %zu at the gc peak, %zu at most\n", gc_peak, held_at_peak, held_max);
  /* The process exits here: freeing the heap would only add to what is measured. */
  return status;
}
