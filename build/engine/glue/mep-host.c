/*
 * The MEP host functions (module `extism:host/user`, contract in wit/mep-guest.wit): messages to
 * and from the host, the interrupt poll, granted time and randomness. Plain i32/f64 parameters so
 * a message moves with one memcpy on the host side.
 */
#include <stdlib.h>
#include <string.h>
#include "engine.h"

#define USER(name) MEP_IMPORT("extism:host/user", name)
USER("mep_notify") void mep_notify(const uint8_t *ptr, int32_t len);
USER("mep_request") int32_t mep_request(const uint8_t *ptr, int32_t len);
USER("mep_reply_copy") int32_t mep_reply_copy(uint8_t *dst, int32_t len);
USER("mep_interrupt") int32_t mep_interrupt(void);
USER("mep_clock_ms") double mep_clock_ms(void);
USER("mep_random_fill") int32_t mep_random_fill(uint8_t *dst, int32_t len);

/* xorshift128+ state for Math.random; seeded from mep_random_fill once per call when granted. */
static uint64_t rng_s0 = 0x9E3779B97F4A7C15ull, rng_s1 = 0xBF58476D1CE4E5B9ull;
static int rng_seeded_this_call;

void mep_host_begin_call(void) { rng_seeded_this_call = 0; }

/* Used by the WASI clock stub (wasi-stubs.c): 0 while initializing or when time is not granted. */
double mep_host_clock_ms(void) { return mep_initializing ? 0 : mep_clock_ms(); }

static int interrupt_handler(JSRuntime *rt, void *opaque) {
  return mep_initializing ? 0 : mep_interrupt() != 0;
}

static JSValue js_notify(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return JS_ThrowTypeError(ctx, "__mep.notify is not available at module top level");
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  mep_notify((const uint8_t *)s, (int32_t)n);
  JS_FreeCString(ctx, s);
  return JS_UNDEFINED;
}

static JSValue js_request(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return JS_ThrowTypeError(ctx, "__mep.request is not available at module top level");
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  int32_t rlen = mep_request((const uint8_t *)s, (int32_t)n);
  JS_FreeCString(ctx, s);
  if (rlen < 0) return JS_NULL;
  char *buf = malloc((size_t)rlen + 1);
  if (!buf) return JS_ThrowOutOfMemory(ctx);
  int32_t got = rlen > 0 ? mep_reply_copy((uint8_t *)buf, rlen) : 0;
  if (got < 0 || got > rlen) got = 0;
  JSValue r = JS_NewStringLen(ctx, buf, (size_t)got);
  free(buf);
  return r;
}

static JSValue js_interrupted(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewBool(ctx, !mep_initializing && mep_interrupt() != 0);
}

static JSValue js_clock(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewFloat64(ctx, mep_host_clock_ms());
}

/* randomFill(view): true when the host granted randomness and filled the bytes. */
static JSValue js_random_fill(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return JS_FALSE;
  size_t off, len, bpe, size;
  JSValue buf = JS_GetTypedArrayBuffer(ctx, argv[0], &off, &len, &bpe);
  if (JS_IsException(buf)) return buf;
  uint8_t *p = JS_GetArrayBuffer(ctx, &size, buf);
  JS_FreeValue(ctx, buf);
  if (!p) return JS_EXCEPTION;
  if (len == 0) return JS_TRUE;
  return JS_NewBool(ctx, mep_random_fill(p + off, (int32_t)len) == (int32_t)len);
}

static JSValue js_math_random(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (!rng_seeded_this_call && !mep_initializing) {
    uint64_t seed[2];
    rng_seeded_this_call = 1;
    if (mep_random_fill((uint8_t *)seed, sizeof seed) == (int32_t)sizeof seed && (seed[0] | seed[1])) {
      rng_s0 = seed[0];
      rng_s1 = seed[1];
    }
  }
  uint64_t x = rng_s0, y = rng_s1;
  rng_s0 = y;
  x ^= x << 23;
  x ^= x >> 17;
  x ^= y ^ (y >> 26);
  rng_s1 = x;
  return JS_NewFloat64(ctx, (double)((x + y) >> 11) * (1.0 / 9007199254740992.0));
}

static const JSCFunctionListEntry natives[] = {
  JS_CFUNC_DEF("notify", 1, js_notify),
  JS_CFUNC_DEF("request", 1, js_request),
  JS_CFUNC_DEF("interrupted", 0, js_interrupted),
  JS_CFUNC_DEF("clockMs", 0, js_clock),
  JS_CFUNC_DEF("randomFill", 1, js_random_fill),
};

void mep_install_host(JSContext *ctx, JSValue native) {
  JS_SetPropertyFunctionList(ctx, native, natives, sizeof(natives) / sizeof(natives[0]));
  JS_SetInterruptHandler(JS_GetRuntime(ctx), interrupt_handler, NULL);
  JSValue global = JS_GetGlobalObject(ctx);
  JSValue math = JS_GetPropertyStr(ctx, global, "Math");
  JS_SetPropertyStr(ctx, math, "random", JS_NewCFunction(ctx, js_math_random, "random", 0));
  JS_FreeValue(ctx, math);
  JS_FreeValue(ctx, global);
}
