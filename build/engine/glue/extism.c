/*
 * The Extism guest side: imports from `extism:host/env` (all handles i64) and the natives behind
 * the @extism/js-pdk compatible globals Host, Memory, Config and console (wrapped in prelude.js).
 * Call input and output travel through the MEP channel's bulk copies when the host attached it
 * (mep-host.c, wit/mep-guest.wit); in any other Extism host through the kernel alone
 * (`input_load_u64` and `alloc` + `store_u64` + `output_set`, 8 bytes per host call).
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"

#define ENV(name) MEP_IMPORT("extism:host/env", name)
ENV("input_length") uint64_t extism_input_length(void);
ENV("input_load_u8") uint32_t extism_input_load_u8(uint64_t off);
ENV("input_load_u64") uint64_t extism_input_load_u64(uint64_t off);
ENV("output_set") void extism_output_set(uint64_t off, uint64_t len);
ENV("alloc") uint64_t extism_alloc(uint64_t len);
ENV("free") void extism_free(uint64_t off);
ENV("length") uint64_t extism_length(uint64_t off);
ENV("load_u8") uint32_t extism_load_u8(uint64_t off);
ENV("load_u64") uint64_t extism_load_u64(uint64_t off);
ENV("store_u8") void extism_store_u8(uint64_t off, uint32_t v);
ENV("store_u64") void extism_store_u64(uint64_t off, uint64_t v);
ENV("error_set") void extism_error_set(uint64_t off);
ENV("config_get") uint64_t extism_config_get(uint64_t off);
ENV("log_info") void extism_log_info(uint64_t off);
ENV("log_debug") void extism_log_debug(uint64_t off);
ENV("log_warn") void extism_log_warn(uint64_t off);
ENV("log_error") void extism_log_error(uint64_t off);


/* Copies bytes into a fresh Extism memory block, 8 bytes per store (the kernel's widest). */
static uint64_t extism_put(const uint8_t *p, size_t n) {
  uint64_t off = extism_alloc(n);
  if (off == 0 && n > 0) return 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    memcpy(&v, p + i, 8);
    extism_store_u64(off + i, v);
  }
  for (; i < n; i++) extism_store_u8(off + i, p[i]);
  return off;
}

/* Reads an Extism memory block into a malloc'd buffer. */
static uint8_t *extism_get(uint64_t off, size_t *pn) {
  size_t n = (size_t)extism_length(off);
  uint8_t *p = malloc(n ? n : 1);
  if (!p) return NULL;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = extism_load_u64(off + i);
    memcpy(p + i, &v, 8);
  }
  for (; i < n; i++) p[i] = (uint8_t)extism_load_u8(off + i);
  *pn = n;
  return p;
}

/* Copies the call input into dst (n = input_length): one bulk copy through the channel, else
 * 8 bytes per kernel call. Returns the number of bytes copied. */
static size_t input_copy(uint8_t *dst, size_t n) {
  if (mep_host_attached()) return (size_t)mep_host.input_copy(dst, (int32_t)n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = extism_input_load_u64(i);
    memcpy(dst + i, &v, 8);
  }
  for (; i < n; i++) dst[i] = (uint8_t)extism_input_load_u8(i);
  return n;
}

void mep_report_error(const char *message) {
  if (mep_initializing) return; /* no imports inside a snapshot; the caller traps */
  uint64_t off = extism_put((const uint8_t *)message, strlen(message));
  extism_error_set(off);
}

static JSValue throw_if_init(JSContext *ctx, const char *what) {
  return JS_ThrowTypeError(ctx, "%s is not available while the module initializes (top level); call it from an exported function", what);
}

/* Returns a pointer/length view of an ArrayBuffer, typed array or DataView argument. */
static uint8_t *bytes_of(JSContext *ctx, JSValueConst v, size_t *len) {
  size_t size;
  uint8_t *p = JS_GetArrayBuffer(ctx, &size, v);
  if (p) {
    *len = size;
    return p;
  }
  JS_FreeValue(ctx, JS_GetException(ctx));
  size_t off, blen, bpe;
  JSValue buf = JS_GetTypedArrayBuffer(ctx, v, &off, &blen, &bpe);
  if (JS_IsException(buf)) {
    JS_FreeValue(ctx, JS_GetException(ctx));
    JSValue b = JS_GetPropertyStr(ctx, v, "buffer");
    JSValue o = JS_GetPropertyStr(ctx, v, "byteOffset");
    JSValue l = JS_GetPropertyStr(ctx, v, "byteLength");
    uint32_t o32 = 0, l32 = 0;
    JS_ToUint32(ctx, &o32, o);
    JS_ToUint32(ctx, &l32, l);
    p = JS_GetArrayBuffer(ctx, &size, b);
    JS_FreeValue(ctx, b);
    JS_FreeValue(ctx, o);
    JS_FreeValue(ctx, l);
    if (!p || (size_t)o32 + l32 > size) {
      JS_ThrowTypeError(ctx, "expected an ArrayBuffer, a typed array or a DataView");
      return NULL;
    }
    *len = l32;
    return p + o32;
  }
  p = JS_GetArrayBuffer(ctx, &size, buf);
  JS_FreeValue(ctx, buf);
  if (!p) return NULL;
  *len = blen;
  return p + off;
}

static JSValue js_input_length(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Host.input*");
  return JS_NewInt64(ctx, (int64_t)extism_input_length());
}

static JSValue js_input_bytes(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Host.inputBytes");
  size_t n = (size_t)extism_input_length();
  JSValue ab = JS_NewArrayBufferCopy(ctx, NULL, n);
  if (JS_IsException(ab)) return ab;
  size_t size;
  uint8_t *p = JS_GetArrayBuffer(ctx, &size, ab);
  if (n > 0 && input_copy(p, n) != n) {
    JS_FreeValue(ctx, ab);
    return JS_ThrowInternalError(ctx, "the host copied fewer input bytes than input_length announced");
  }
  return ab;
}

/* The call input in a malloc'd NUL-terminated buffer (*n its length), or NULL with an exception
 * thrown. The NUL is what JS_ParseJSON needs, and JS_NewStringLen ignores. */
static char *input_text(JSContext *ctx, size_t *n) {
  *n = (size_t)extism_input_length();
  char *p = malloc(*n + 1);
  if (!p) {
    JS_ThrowOutOfMemory(ctx);
    return NULL;
  }
  if (*n > 0 && input_copy((uint8_t *)p, *n) != *n) {
    free(p);
    JS_ThrowInternalError(ctx, "the host copied fewer input bytes than input_length announced");
    return NULL;
  }
  p[*n] = 0;
  return p;
}

static JSValue js_input_string(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Host.inputString");
  size_t n;
  char *p = input_text(ctx, &n);
  if (!p) return JS_EXCEPTION;
  JSValue s = JS_NewStringLen(ctx, p, n);
  free(p);
  return s;
}

/* The input parsed as JSON straight from its UTF-8 bytes: JSON.parse(Host.inputString()) would
 * decode them into a JS string and JSON.parse encode that back to UTF-8 before parsing. */
static JSValue js_input_json(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "__mep.inputJson");
  size_t n;
  char *p = input_text(ctx, &n);
  if (!p) return JS_EXCEPTION;
  /* A JSON document runs no code and cannot hold a cycle, so a collection during the parse
   * finds no garbage of the parse's making; it only rescans the growing document, again at every
   * threshold. The collector waits, and the threshold is then set as a collection would set it. */
  JSRuntime *rt = JS_GetRuntime(ctx);
  JS_SetGCThreshold(rt, SIZE_MAX);
  JSValue v = JS_ParseJSON(ctx, p, n, "<input>");
  free(p);
  JS_SetGCThreshold(rt, mep_gc_threshold(mep_heap_bytes()));
  return v;
}

static JSValue output(JSContext *ctx, const uint8_t *p, size_t n) {
  if (mep_host_attached()) {
    if (mep_host.output_copy(p, (int32_t)n) != 0)
      return JS_ThrowRangeError(ctx, "output exceeds the host's limit (%zu bytes refused)", n);
    return JS_TRUE;
  }
  uint64_t off = extism_put(p, n);
  if (off == 0 && n > 0) return JS_ThrowRangeError(ctx, "the host refused to allocate %zu bytes of output", n);
  extism_output_set(off, n);
  return JS_TRUE;
}

static JSValue js_output_string(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Host.outputString");
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  JSValue r = output(ctx, (const uint8_t *)s, n);
  JS_FreeCString(ctx, s);
  return r;
}

static JSValue js_output_bytes(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Host.outputBytes");
  size_t n;
  uint8_t *p = bytes_of(ctx, argv[0], &n);
  if (!p) return JS_EXCEPTION;
  return output(ctx, p, n);
}

static int to_handle(JSContext *ctx, uint64_t *off, JSValueConst v) {
  int64_t x;
  if (JS_ToInt64Ext(ctx, &x, v)) return -1;
  *off = (uint64_t)x;
  return 0;
}

static JSValue js_mem_from_bytes(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Memory");
  size_t n;
  uint8_t *p = bytes_of(ctx, argv[0], &n);
  if (!p) return JS_EXCEPTION;
  return JS_NewBigUint64(ctx, extism_put(p, n));
}

static JSValue js_mem_from_string(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Memory");
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  uint64_t off = extism_put((const uint8_t *)s, n);
  JS_FreeCString(ctx, s);
  return JS_NewBigUint64(ctx, off);
}

static JSValue js_mem_length(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Memory");
  uint64_t off;
  if (to_handle(ctx, &off, argv[0])) return JS_EXCEPTION;
  return JS_NewBigUint64(ctx, extism_length(off));
}

static JSValue js_mem_read(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Memory");
  uint64_t off;
  if (to_handle(ctx, &off, argv[0])) return JS_EXCEPTION;
  int as_string = JS_ToBool(ctx, argv[1]);
  size_t n;
  uint8_t *p = extism_get(off, &n);
  if (!p) return JS_ThrowOutOfMemory(ctx);
  JSValue r = as_string ? JS_NewStringLen(ctx, (const char *)p, n) : JS_NewArrayBufferCopy(ctx, p, n);
  free(p);
  return r;
}

static JSValue js_mem_free(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Memory");
  uint64_t off;
  if (to_handle(ctx, &off, argv[0])) return JS_EXCEPTION;
  extism_free(off);
  return JS_UNDEFINED;
}

int mep_config_text(const char *key, char *out, size_t cap) {
  if (mep_initializing || cap == 0) return -1;
  uint64_t k = extism_put((const uint8_t *)key, strlen(key));
  uint64_t val = extism_config_get(k);
  extism_free(k);
  if (val == 0) return -1;
  size_t n;
  uint8_t *p = extism_get(val, &n);
  extism_free(val);
  if (!p) return -1;
  int fits = n < cap;
  if (fits) {
    memcpy(out, p, n);
    out[n] = 0;
  }
  free(p);
  return fits ? (int)n : -1;
}

static JSValue js_config_get(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return throw_if_init(ctx, "Config.get");
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  uint64_t key = extism_put((const uint8_t *)s, n);
  JS_FreeCString(ctx, s);
  uint64_t val = extism_config_get(key);
  extism_free(key);
  if (val == 0) return JS_NULL;
  uint8_t *p = extism_get(val, &n);
  extism_free(val);
  if (!p) return JS_ThrowOutOfMemory(ctx);
  JSValue r = JS_NewStringLen(ctx, (const char *)p, n);
  free(p);
  return r;
}

/* log(level, text): 0 debug, 1 info, 2 warn, 3 error. Dropped during initialization. */
static JSValue js_log(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return JS_UNDEFINED;
  int32_t level = 1;
  JS_ToInt32(ctx, &level, argv[0]);
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[1]);
  if (!s) return JS_EXCEPTION;
  uint64_t off = extism_put((const uint8_t *)s, n);
  JS_FreeCString(ctx, s);
  switch (level) {
    case 0: extism_log_debug(off); break;
    case 2: extism_log_warn(off); break;
    case 3: extism_log_error(off); break;
    default: extism_log_info(off); break;
  }
  extism_free(off);
  return JS_UNDEFINED;
}

static const JSCFunctionListEntry natives[] = {
  JS_CFUNC_DEF("inputLength", 0, js_input_length),
  JS_CFUNC_DEF("inputBytes", 0, js_input_bytes),
  JS_CFUNC_DEF("inputString", 0, js_input_string),
  JS_CFUNC_DEF("inputJson", 0, js_input_json),
  JS_CFUNC_DEF("outputString", 1, js_output_string),
  JS_CFUNC_DEF("outputBytes", 1, js_output_bytes),
  JS_CFUNC_DEF("memFromBytes", 1, js_mem_from_bytes),
  JS_CFUNC_DEF("memFromString", 1, js_mem_from_string),
  JS_CFUNC_DEF("memLength", 1, js_mem_length),
  JS_CFUNC_DEF("memRead", 2, js_mem_read),
  JS_CFUNC_DEF("memFree", 1, js_mem_free),
  JS_CFUNC_DEF("configGet", 1, js_config_get),
  JS_CFUNC_DEF("log", 2, js_log),
};

void mep_install_extism(JSContext *ctx, JSValue native) {
  JS_SetPropertyFunctionList(ctx, native, natives, sizeof(natives) / sizeof(natives[0]));
}
