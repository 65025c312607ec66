/*
 * A native host for the engine's quickjs-ng (the same fetched sources, with the same edits as the
 * wasm engine), for measuring what the sandbox costs: it runs one JS file as a global script
 * with quickjs-libc's helpers (print, console.log, scriptArgs) and readText(path) (a file's UTF-8
 * text), then the job queue and timers until they are empty. Exit code 1 when the script throws.
 * Not part of any guest.
 *
 *   runner FILE [ARGS...]
 */
#include <stdio.h>
#include <stdlib.h>
#include "quickjs.h"
#include "quickjs-libc.h"

/* readText(path): the file's text, or a TypeError naming it. */
static JSValue read_text(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  const char *path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  size_t len;
  uint8_t *buf = js_load_file(ctx, &len, path);
  JSValue r = buf ? JS_NewStringLen(ctx, (const char *)buf, len) : JS_ThrowTypeError(ctx, "readText: cannot read %s", path);
  if (buf) js_free(ctx, buf);
  JS_FreeCString(ctx, path);
  return r;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [ARGS...]\n", argv[0]);
    return 2;
  }
  JSRuntime *rt = JS_NewRuntime();
  if (!rt) return 1;
  js_std_init_handlers(rt);
  JSContext *ctx = JS_NewContext(rt);
  if (!ctx) return 1;
  js_std_add_helpers(ctx, argc - 1, argv + 1);
  JSValue global = JS_GetGlobalObject(ctx);
  JS_SetPropertyStr(ctx, global, "readText", JS_NewCFunction(ctx, read_text, "readText", 1));
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
  /* The process exits here: freeing the heap would only add to what is measured. */
  return status;
}
