/*
 * The test262 runner's native host for quickjs-ng (scripts/test262/native.ts builds it against
 * the unedited sources and against the engine's edits). It runs many tests in one process, each
 * in a fresh runtime, reading jobs on stdin and writing one result per job on stdout:
 *
 *   job:    "<flags> <includes> <name-len> <src-len>\n", one harness path per line, the test's
 *           file name (module tests resolve their imports against it), then its source text
 *   result: "<threw> <print-len> <error-len>\n", what print() printed, the exception's text
 *
 * flags: 1 module, 2 cannot block (Atomics.wait throws), 4 no harness. $262 offers
 * createRealm, detachArrayBuffer, evalScript, gc, global and IsHTMLDDA; no agents.
 * Not part of any guest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "quickjs.h"

#define F_MODULE 1
#define F_CANNOT_BLOCK 2
#define TIMEOUT_S 120

/* The engine's edits keep WeakRef targets until the glue lets them go (patches/weakref.ts). */
void mep_clear_kept(void) __attribute__((weak));

typedef struct { char *p; size_t len, cap; } Buf;

static void buf_add(Buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

static Buf printed;
static time_t deadline;

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc(n + 1);
  if (!p || fread(p, 1, n, f) != (size_t)n) abort();
  p[n] = 0;
  fclose(f);
  *len = n;
  return p;
}

static JSValue js_print(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  for (int i = 0; i < argc; i++) {
    size_t n;
    const char *s = JS_ToCStringLen(ctx, &n, argv[i]);
    if (!s) return JS_EXCEPTION;
    if (i) buf_add(&printed, " ", 1);
    buf_add(&printed, s, n);
    JS_FreeCString(ctx, s);
  }
  buf_add(&printed, "\n", 1);
  return JS_UNDEFINED;
}

static JSValue js_detach(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  JS_DetachArrayBuffer(ctx, argv[0]);
  return JS_UNDEFINED;
}

static JSValue js_eval_script(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  size_t len;
  const char *s = JS_ToCStringLen(ctx, &len, argv[0]);
  if (!s) return JS_EXCEPTION;
  JSValue r = JS_Eval(ctx, s, len, "<evalScript>", JS_EVAL_TYPE_GLOBAL);
  JS_FreeCString(ctx, s);
  return r;
}

static JSValue js_gc(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  JS_RunGC(JS_GetRuntime(ctx));
  return JS_UNDEFINED;
}

static JSValue js_is_html_dda(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) { return JS_NULL; }

static JSValue add_helpers(JSContext *ctx);

static JSValue js_create_realm(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  JSContext *realm = JS_NewContext(JS_GetRuntime(ctx));
  if (!realm) return JS_ThrowOutOfMemory(ctx);
  JSValue r = add_helpers(realm);
  JS_FreeContext(realm); /* the $262 object holds the realm */
  return r;
}

static JSValue add_helpers(JSContext *ctx) {
  JSValue global = JS_GetGlobalObject(ctx);
  JS_SetPropertyStr(ctx, global, "print", JS_NewCFunction(ctx, js_print, "print", 1));
  JSValue o = JS_NewObject(ctx);
  JS_SetPropertyStr(ctx, o, "createRealm", JS_NewCFunction(ctx, js_create_realm, "createRealm", 0));
  JS_SetPropertyStr(ctx, o, "detachArrayBuffer", JS_NewCFunction(ctx, js_detach, "detachArrayBuffer", 1));
  JS_SetPropertyStr(ctx, o, "evalScript", JS_NewCFunction(ctx, js_eval_script, "evalScript", 1));
  JS_SetPropertyStr(ctx, o, "gc", JS_NewCFunction(ctx, js_gc, "gc", 0));
  JSValue dda = JS_NewCFunction(ctx, js_is_html_dda, "IsHTMLDDA", 0);
  JS_SetIsHTMLDDA(ctx, dda);
  JS_SetPropertyStr(ctx, o, "IsHTMLDDA", dda);
  JS_SetPropertyStr(ctx, o, "global", JS_DupValue(ctx, global));
  JS_SetPropertyStr(ctx, global, "$262", JS_DupValue(ctx, o));
  JS_FreeValue(ctx, global);
  return o;
}

static int interrupt(JSRuntime *rt, void *opaque) { return time(NULL) > deadline; }

static JSModuleDef *load_module(JSContext *ctx, const char *name, void *opaque) {
  size_t len;
  char *src = read_file(name, &len);
  if (!src) {
    JS_ThrowReferenceError(ctx, "could not load module '%s'", name);
    return NULL;
  }
  JSValue m = JS_Eval(ctx, src, len, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
  free(src);
  if (JS_IsException(m)) return NULL;
  JSModuleDef *def = JS_VALUE_GET_PTR(m);
  JS_FreeValue(ctx, m);
  return def;
}

/* Runs the promise jobs; -1 with the job's exception pending in *failed. */
static int drain(JSRuntime *rt, JSContext **failed) {
  for (;;) {
    int r = JS_ExecutePendingJob(rt, failed);
    if (r <= 0) return r;
  }
}

static void exception_text(JSContext *ctx, JSValue exc, Buf *out) {
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, exc);
  if (s) {
    buf_add(out, s, n);
    JS_FreeCString(ctx, s);
  } else {
    JS_FreeValue(ctx, JS_GetException(ctx));
    buf_add(out, "exception (not convertible to a string)", 39);
  }
  JS_FreeValue(ctx, exc);
}

static int run(int flags, char **includes, int n_includes, const char *name, const char *src, size_t len, Buf *err) {
  JSRuntime *rt = JS_NewRuntime();
  JSContext *ctx = JS_NewContext(rt);
  JS_SetCanBlock(rt, !(flags & F_CANNOT_BLOCK));
  JS_SetModuleLoaderFunc(rt, NULL, load_module, NULL);
  JS_SetInterruptHandler(rt, interrupt, NULL);
  deadline = time(NULL) + TIMEOUT_S;
  JS_FreeValue(ctx, add_helpers(ctx));
  int threw = 0;
  JSContext *failed = ctx;
  for (int i = 0; i < n_includes && !threw; i++) {
    size_t n;
    char *h = read_file(includes[i], &n);
    if (!h) {
      buf_add(err, "cannot read ", 12);
      buf_add(err, includes[i], strlen(includes[i]));
      threw = 1;
      break;
    }
    JSValue r = JS_Eval(ctx, h, n, includes[i], JS_EVAL_TYPE_GLOBAL);
    free(h);
    if (JS_IsException(r)) threw = 1;
    else JS_FreeValue(ctx, r);
  }
  if (!threw) {
    JSValue r = JS_Eval(ctx, src, len, name, (flags & F_MODULE) ? JS_EVAL_TYPE_MODULE : JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(r)) {
      threw = 1;
    } else if (drain(rt, &failed) < 0) {
      threw = 1;
      JS_FreeValue(ctx, r);
    } else {
      if ((flags & F_MODULE) && JS_PromiseState(ctx, r) == JS_PROMISE_REJECTED) {
        threw = 2;
        exception_text(ctx, JS_PromiseResult(ctx, r), err);
      }
      JS_FreeValue(ctx, r);
    }
  }
  if (threw == 1) exception_text(failed, JS_GetException(failed), err);
  if (mep_clear_kept) mep_clear_kept();
  JS_FreeContext(ctx);
  JS_FreeRuntime(rt);
  return threw != 0;
}

int main(void) {
  char line[4096];
  while (fgets(line, sizeof line, stdin)) {
    int flags, n_includes;
    size_t name_len, src_len;
    if (sscanf(line, "%d %d %zu %zu", &flags, &n_includes, &name_len, &src_len) != 4) return 2;
    char **includes = calloc(n_includes + 1, sizeof(char *));
    for (int i = 0; i < n_includes; i++) {
      if (!fgets(line, sizeof line, stdin)) return 2;
      line[strcspn(line, "\n")] = 0;
      includes[i] = strdup(line);
    }
    char *name = malloc(name_len + 1), *src = malloc(src_len + 1);
    if (fread(name, 1, name_len, stdin) != name_len || fread(src, 1, src_len, stdin) != src_len) return 2;
    name[name_len] = 0;
    src[src_len] = 0;
    Buf err = {0};
    printed.len = 0;
    buf_add(&printed, "", 0);
    buf_add(&err, "", 0);
    int threw = run(flags, includes, n_includes, name, src, src_len, &err);
    printf("%d %zu %zu\n", threw, printed.len, err.len);
    fwrite(printed.p, 1, printed.len, stdout);
    fwrite(err.p, 1, err.len, stdout);
    fflush(stdout);
    for (int i = 0; i < n_includes; i++) free(includes[i]);
    free(includes);
    free(name);
    free(src);
    free(err.p);
  }
  return 0;
}
