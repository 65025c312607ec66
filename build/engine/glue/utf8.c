/*
 * UTF-8 validation for TextDecoder (glue/globals/text.js): the length of the longest prefix of
 * whole, valid sequences, by the WHATWG Encoding standard's rules (no overlongs, no surrogates,
 * nothing past U+10FFFF). The common all-valid message is then decoded by QuickJS in one call,
 * and only the bytes after an error are looked at in JS.
 */
#include "engine.h"

static size_t valid_prefix(const uint8_t *p, size_t len) {
  size_t i = 0;
  while (i < len) {
    uint8_t c = p[i];
    if (c < 0x80) { i++; continue; }
    size_t need;
    uint8_t lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) { need = 2; if (c == 0xe0) lo = 0xa0; if (c == 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; if (c == 0xf0) lo = 0x90; if (c == 0xf4) hi = 0x8f; }
    else return i;
    if (i + need >= len) return i; /* incomplete at the end */
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k <= need; k++) if (p[i + k] < 0x80 || p[i + k] > 0xbf) return i;
    i += need + 1;
  }
  return i;
}

/* utf8Prefix(ArrayBuffer, byteOffset, byteLength) -> the valid prefix's length in bytes */
static JSValue js_utf8_prefix(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  size_t size;
  uint8_t *p = JS_GetArrayBuffer(ctx, &size, argv[0]);
  if (!p) return JS_EXCEPTION;
  uint32_t off = 0, len = 0;
  if (JS_ToUint32(ctx, &off, argv[1]) || JS_ToUint32(ctx, &len, argv[2])) return JS_EXCEPTION;
  if ((size_t)off + len > size) return JS_ThrowRangeError(ctx, "TextDecoder: view outside its buffer");
  return JS_NewInt64(ctx, (int64_t)valid_prefix(p + off, len));
}

static const JSCFunctionListEntry natives[] = {
  JS_CFUNC_DEF("utf8Prefix", 3, js_utf8_prefix),
};

void mep_install_utf8(JSContext *ctx, JSValue native) {
  JS_SetPropertyFunctionList(ctx, native, natives, sizeof(natives) / sizeof(natives[0]));
}
