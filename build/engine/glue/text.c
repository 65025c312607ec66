/*
 * UTF-8 natives behind TextEncoder/TextDecoder (prelude.js): QuickJS converts strings to and
 * from UTF-8 in C, far faster than a JS loop for multi-megabyte messages.
 */
#include <string.h>
#include "engine.h"

/* utf8Encode(string) -> ArrayBuffer */
static JSValue js_utf8_encode(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  JSValue ab = JS_NewArrayBufferCopy(ctx, (const uint8_t *)s, n);
  JS_FreeCString(ctx, s);
  return ab;
}

/* utf8Decode(ArrayBuffer, byteOffset, byteLength) -> string */
static JSValue js_utf8_decode(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  size_t size;
  uint8_t *p = JS_GetArrayBuffer(ctx, &size, argv[0]);
  if (!p) return JS_EXCEPTION; /* prelude.js never passes an empty view */
  uint32_t off = 0, len = 0;
  if (JS_ToUint32(ctx, &off, argv[1]) || JS_ToUint32(ctx, &len, argv[2])) return JS_EXCEPTION;
  if ((size_t)off + len > size) return JS_ThrowRangeError(ctx, "TextDecoder: view outside its buffer");
  return JS_NewStringLen(ctx, (const char *)p + off, len);
}

static const JSCFunctionListEntry natives[] = {
  JS_CFUNC_DEF("utf8Encode", 1, js_utf8_encode),
  JS_CFUNC_DEF("utf8Decode", 3, js_utf8_decode),
};

void mep_install_text(JSContext *ctx, JSValue native) {
  JS_SetPropertyFunctionList(ctx, native, natives, sizeof(natives) / sizeof(natives[0]));
}
