/*
 * Unhandled promise rejections (issue 23). QuickJS drops them silently unless the host sets a
 * rejection tracker: it is told when a promise is rejected with no handler, and again when a
 * handler is attached later. The event loop (event-loop.c) asks for a report each time the
 * microtasks have run out, as Node does after each task: a rejection still unhandled then is
 * logged at warn level ("Unhandled promise rejection: ..."), formatted by the globals'
 * reportRejection (glue/globals/rejections.js), and the call goes on. At a module's top level
 * (inside the snapshot, where nothing can be logged) it fails the build instead, as Node ends
 * a process for one.
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "platform.h"

/* quickjs-ng passes the flag as a C bool, QuickJS 2021 as its JS_BOOL (int). */
#ifdef QJS_VERSION_MAJOR
typedef bool mep_tracker_bool;
#else
typedef JS_BOOL mep_tracker_bool;
#endif

typedef struct {
  JSValue promise; /* JS_UNDEFINED once handled (a hole until the ends are trimmed) */
  JSValue reason;
} Rejection;

/* Live entries are [head, count). A handler is usually attached either to the promise rejected
 * last (`p.catch` right after) or to the oldest (Promise.all / allSettled over many async calls
 * that threw): the search runs from both ends, and holes at either end are trimmed, so both
 * patterns cost O(1) per promise. */
static Rejection *pending;
static int head, count, cap;
static JSValue report_fn = JS_UNDEFINED;

static void drop(JSContext *ctx, Rejection *r) {
  JS_FreeValue(ctx, r->promise);
  JS_FreeValue(ctx, r->reason);
  r->promise = JS_UNDEFINED;
  r->reason = JS_UNDEFINED;
}

static void trim(void) {
  while (head < count && JS_IsUndefined(pending[head].promise)) head++;
  while (count > head && JS_IsUndefined(pending[count - 1].promise)) count--;
  if (head == count) head = count = 0;
}

static int same(JSValueConst a, JSValueConst b) { return JS_VALUE_GET_PTR(a) == JS_VALUE_GET_PTR(b); }

static void track(JSContext *ctx, JSValueConst promise, JSValueConst reason, mep_tracker_bool is_handled, void *opaque) {
  if (is_handled) {
    for (int lo = head, hi = count - 1; lo <= hi; lo++, hi--) {
      Rejection *r = same(pending[hi].promise, promise) ? &pending[hi] : same(pending[lo].promise, promise) ? &pending[lo] : NULL;
      if (r) {
        drop(ctx, r);
        trim();
        return;
      }
    }
    return;
  }
  if (count == cap) {
    if (head > 0) { /* reuse the trimmed front first */
      memmove(pending, pending + head, (size_t)(count - head) * sizeof(Rejection));
      count -= head;
      head = 0;
    } else {
      int next = cap ? cap * 2 : 16;
      Rejection *grown = realloc(pending, (size_t)next * sizeof(Rejection));
      if (!grown) return; /* out of memory: this rejection goes unreported rather than trapping */
      pending = grown;
      cap = next;
    }
  }
  pending[count].promise = JS_DupValue(ctx, promise);
  pending[count].reason = JS_DupValue(ctx, reason);
  count++;
}

void mep_install_rejections(JSContext *ctx, JSValue native) {
  report_fn = JS_GetPropertyStr(ctx, native, "reportRejection"); /* kept for the instance's life */
  JS_SetHostPromiseRejectionTracker(JS_GetRuntime(ctx), track, NULL);
}

/* Takes the rejections still unhandled: their reasons (caller frees each and the array), or NULL. */
static JSValue *take(JSContext *ctx, int *n) {
  *n = 0;
  trim();
  if (count == head) return NULL;
  JSValue *reasons = malloc((size_t)(count - head) * sizeof(JSValue));
  for (int i = head; i < count; i++) {
    if (JS_IsUndefined(pending[i].promise)) continue;
    if (reasons) reasons[(*n)++] = JS_DupValue(ctx, pending[i].reason);
    drop(ctx, &pending[i]);
  }
  head = count = 0;
  return reasons;
}

void mep_report_rejections(JSContext *ctx) {
  int n;
  JSValue *reasons = take(ctx, &n); /* taken first: formatting one may reject another promise */
  for (int i = 0; i < n; i++) {
    JSValue r = JS_Call(ctx, report_fn, JS_UNDEFINED, 1, (JSValueConst *)&reasons[i]);
    if (JS_IsException(r)) JS_FreeValue(ctx, JS_GetException(ctx)); /* a reason that cannot be formatted is dropped */
    JS_FreeValue(ctx, r);
    JS_FreeValue(ctx, reasons[i]);
  }
  free(reasons);
}

int mep_refuse_rejections(JSContext *ctx) {
  int n;
  JSValue *reasons = take(ctx, &n);
  if (n == 0) {
    free(reasons);
    return 0;
  }
  const char *text = JS_ToCString(ctx, reasons[0]);
  JS_ThrowInternalError(ctx, "the module's top level left a promise rejection unhandled (%s)%s; handle it with .catch() or try/await where the promise is made", text ? text : "a reason that cannot be printed", n > 1 ? ", and more" : "");
  if (text) JS_FreeCString(ctx, text);
  for (int i = 0; i < n; i++) JS_FreeValue(ctx, reasons[i]);
  free(reasons);
  return -1;
}
