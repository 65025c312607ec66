/*
 * The Javy plugin ABI: initialize-runtime, compile-src, invoke, cabi_realloc and the
 * `import_namespace` custom section (appended by build/engine/compile.ts), so `javy build -C plugin=engine.wasm` can use this engine.
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"

/* compile-src result: [discriminant (0 bytecode, 1 error), ptr, len]. */
static uint32_t compile_result[3];

MEP_EXPORT("initialize-runtime") void mep_initialize_runtime(void) { mep_runtime_init(); }

MEP_EXPORT("cabi_realloc") void *mep_cabi_realloc(void *orig, size_t orig_size, size_t align, size_t new_size) {
  if (new_size == 0) {
    free(orig);
    return (void *)align;
  }
  void *p = realloc(orig, new_size);
  if (!p) __builtin_trap();
  return p;
}

static void set_result(uint32_t discr, void *ptr, size_t len) {
  compile_result[0] = discr;
  compile_result[1] = (uint32_t)(uintptr_t)ptr;
  compile_result[2] = (uint32_t)len;
}

/* Skips white space, comments and a leading #! line; returns where the first token starts. */
static const char *first_token(const char *p, const char *end) {
  if (end - p >= 2 && p[0] == '#' && p[1] == '!')
    while (p < end && *p != '\n') p++;
  while (p < end) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
      p++;
    } else if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
      while (p < end && *p != '\n') p++;
    } else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
      for (p += 2; p < end && !(end - p >= 2 && p[0] == '*' && p[1] == '/'); p++) {}
      p = end - p >= 2 ? p + 2 : end;
    } else {
      break;
    }
  }
  return p;
}

static int is_ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$'; }

/* 1 when the source is a module: its first token is `export`, or `import` that is not a call or
 * `import.meta`. quickjs-ng's JS_DetectModule instead compiles the whole text as a module in a
 * runtime of its own, calling most scripts modules (esbuild's IIFE bundles among them). */
static int is_module(const char *src, size_t len) {
  const char *end = src + len, *p = first_token(src, end);
  if ((size_t)(end - p) > 6 && memcmp(p, "export", 6) == 0 && !is_ident_char(p[6])) return 1;
  if ((size_t)(end - p) <= 6 || memcmp(p, "import", 6) != 0 || is_ident_char(p[6])) return 0;
  p = first_token(p + 6, end);
  return p < end && *p != '(' && *p != '.';
}

/* Compiles UTF-8 source to QuickJS bytecode. The source is a module when its first statement is
 * an import or export (is_module), else a global script. */
MEP_EXPORT("compile-src") uint32_t *mep_compile_src(const char *src, size_t len) {
  mep_runtime_init();
  JSContext *ctx = mep_ctx;
  char *copy = malloc(len + 1); /* QuickJS's parser needs a NUL-terminated buffer */
  if (!copy) __builtin_trap();
  memcpy(copy, src, len);
  copy[len] = 0;
  int flags = JS_EVAL_FLAG_COMPILE_ONLY | (is_module(copy, len) ? JS_EVAL_TYPE_MODULE : JS_EVAL_TYPE_GLOBAL);
  JSValue fn = JS_Eval(ctx, copy, len, "guest.js", flags);
  free(copy);
  if (JS_IsException(fn)) {
    size_t n;
    char *text = mep_exception_text(ctx, &n);
    set_result(1, text, n);
    return compile_result;
  }
  size_t n;
  /* Without each function's source text, as QuickJS 2021's bytecode was: quickjs-ng writes it
   * for every function, nested ones again inside their parents', which made the Elm compiler's
   * 2.1 MB of JS 6.1 MB of bytecode (0.9 MB without). Function.prototype.toString then shows no
   * body, as it did before. */
  uint8_t *bc = JS_WriteObject(ctx, &n, fn, JS_WRITE_OBJ_BYTECODE | JS_WRITE_OBJ_STRIP_SOURCE);
  JS_FreeValue(ctx, fn);
  if (!bc) {
    size_t m;
    char *text = mep_exception_text(ctx, &m);
    set_result(1, text, m);
    return compile_result;
  }
  /* Hand the caller a libc block so it may release it with cabi_realloc(ptr, len, 1, 0). */
  uint8_t *out = malloc(n ? n : 1);
  if (!out) __builtin_trap();
  memcpy(out, bc, n);
  js_free(ctx, bc);
  set_result(0, out, n);
  return compile_result;
}

/* Evaluates bytecode; with fn_discr 1, then calls the function of that name, looked up on the
 * build's export object (__mep_exports) or else on the global object. A JS exception is reported
 * through Extism error_set; the instance stays usable. */
MEP_EXPORT("invoke") void mep_invoke(const uint8_t *bc, size_t bc_len, uint32_t fn_discr, const char *fn_ptr, size_t fn_len) {
  mep_runtime_init();
  JSContext *ctx = mep_ctx;
  mep_host_begin_call();
  JSValue obj = JS_ReadObject(ctx, bc, bc_len, JS_READ_OBJ_BYTECODE);
  if (JS_IsException(obj)) goto fail;
  if (JS_VALUE_GET_TAG(obj) == JS_TAG_MODULE && JS_ResolveModule(ctx, obj) < 0) {
    JS_FreeValue(ctx, obj);
    goto fail;
  }
  JSValue ret = JS_EvalFunction(ctx, obj); /* consumes obj */
  if (JS_IsException(ret)) goto fail;
  JS_FreeValue(ctx, ret);
  if (mep_drain_jobs(ctx)) goto fail;
  if (fn_discr == 1) {
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue holder = JS_GetPropertyStr(ctx, global, "__mep_exports");
    if (!JS_IsObject(holder)) {
      JS_FreeValue(ctx, holder);
      holder = JS_DupValue(ctx, global);
    }
    JSAtom name = JS_NewAtomLen(ctx, fn_ptr, fn_len);
    JSValue fn = JS_GetProperty(ctx, holder, name);
    JS_FreeAtom(ctx, name);
    JS_FreeValue(ctx, holder);
    JS_FreeValue(ctx, global);
    if (!JS_IsFunction(ctx, fn)) {
      JS_FreeValue(ctx, fn);
      JS_ThrowReferenceError(ctx, "invoke: no exported function named '%.*s'", (int)fn_len, fn_ptr);
      goto fail;
    }
    ret = JS_Call(ctx, fn, JS_UNDEFINED, 0, NULL);
    JS_FreeValue(ctx, fn);
    if (JS_IsException(ret)) goto fail;
    JS_FreeValue(ctx, ret);
    if (mep_drain_jobs(ctx)) goto fail;
  }
  return;
fail:
  mep_report_exception(ctx);
}
