/*
 * The MEP host channel (contract in wit/mep-guest.wit): messages to and from the host, the
 * interrupt poll, granted time and randomness. The host functions are not imports: a host that
 * has them puts them in the engine's exported table and calls `mep_host_attach`, so the module
 * imports only the Extism kernel. Without them (a foreign Extism host) every function here
 * degrades instead of trapping: no interrupt, no clock, no randomness, and notify/request answer
 * "no channel" so the PDK can log through Extism and answer requests with a clear error.
 * Plain i32/f64 parameters so a message moves with one memcpy on the host side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "platform.h"

/* Versions of the attach protocol and the number of slots each fills (wit/mep-guest.wit):
 * version 2 adds mep_artifact in a ninth slot; a host that has no such function attaches
 * version 1, and the engine then streams artifacts as JSON notifications. */
#define MEP_HOST_ABI_VERSION 1
#define MEP_HOST_SLOTS 8
#define MEP_HOST_ABI_VERSION_ARTIFACT 2
#define MEP_HOST_SLOTS_ARTIFACT 9

MepHostChannel mep_host;

/*
 * Points the channel at table slots first..first+7, in this order: input_copy, output_copy,
 * notify, request, reply_copy, interrupt, clock_ms, random_fill (in wasm32 C a function pointer
 * is a table index), and under version 2 first+8 at artifact. count 0 detaches. Returns 0, or 1
 * for an unsupported version, 2 for a count other than the version's (8 or 9) or 0, 3 for a slot
 * range that cannot be a table index.
 */
MEP_EXPORT("mep_host_attach") int32_t mep_host_attach(int32_t first_slot, int32_t count, int32_t version) {
  if (version != MEP_HOST_ABI_VERSION && version != MEP_HOST_ABI_VERSION_ARTIFACT) return 1;
  if (count == 0) {
    memset(&mep_host, 0, sizeof mep_host);
    return 0;
  }
  int32_t slots = version == MEP_HOST_ABI_VERSION ? MEP_HOST_SLOTS : MEP_HOST_SLOTS_ARTIFACT;
  if (count != slots) return 2;
  if (first_slot <= 0 || first_slot > 0x7fffffff - slots) return 3;
  uintptr_t s = (uintptr_t)first_slot;
  mep_host.input_copy = (int32_t (*)(uint8_t *, int32_t))(s + 0);
  mep_host.output_copy = (int32_t (*)(const uint8_t *, int32_t))(s + 1);
  mep_host.notify = (void (*)(const uint8_t *, int32_t))(s + 2);
  mep_host.request = (int32_t (*)(const uint8_t *, int32_t))(s + 3);
  mep_host.reply_copy = (int32_t (*)(uint8_t *, int32_t))(s + 4);
  mep_host.interrupt = (int32_t (*)(void))(s + 5);
  mep_host.clock_ms = (double (*)(void))(s + 6);
  mep_host.random_fill = (int32_t (*)(uint8_t *, int32_t))(s + 7);
  mep_host.artifact = slots == MEP_HOST_SLOTS_ARTIFACT ? (void (*)(const uint8_t *, int32_t, const uint8_t *, int32_t))(s + 8) : NULL;
  return 0;
}

/* xorshift128+ state for Math.random; seeded from random_fill once per call when granted. */
#define MEP_RNG_SEED0 0x9E3779B97F4A7C15ull
#define MEP_RNG_SEED1 0xBF58476D1CE4E5B9ull
static uint64_t rng_s0 = MEP_RNG_SEED0, rng_s1 = MEP_RNG_SEED1;
static int rng_seeded_this_call;

void mep_host_begin_call(void) {
  rng_seeded_this_call = 0;
  mep_platform_begin_call();
  mep_clear_kept();
}

/* Used by the WASI clock stub (wasi-stubs.c): 0 while initializing, without a channel, or when
 * time is not granted. */
double mep_host_clock_ms(void) { return mep_host_attached() ? mep_host.clock_ms() : 0; }

static int host_interrupt(void) { return mep_host_attached() && mep_host.interrupt() != 0; }

static int host_random_fill(uint8_t *p, int32_t len) { return mep_host_attached() ? mep_host.random_fill(p, len) : 0; }

static int interrupt_handler(JSRuntime *rt, void *opaque) { return host_interrupt(); }

/* hostChannel(): true when the host attached the MEP channel (decided per call, at call time). */
static JSValue js_host_channel(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewBool(ctx, mep_host_attached());
}

/* notify(json): true when sent, false without a channel (the caller decides what degrades). */
static JSValue js_notify(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return JS_ThrowTypeError(ctx, "__mep.notify is not available at module top level");
  if (!mep_host_attached()) return JS_FALSE;
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  mep_host.notify((const uint8_t *)s, (int32_t)n);
  JS_FreeCString(ctx, s);
  return JS_TRUE;
}

/*
 * artifact(envelope, content): a streamed artifact whose content crosses as its UTF-8 bytes beside
 * a small JSON envelope, instead of quoted again into a morphir.backend.artifact notification.
 * `envelope` is a JSON object text ({"requestId", "path", "binary"}); the engine adds "length",
 * the content's byte count. True when sent; false without a version-2 channel, or for content
 * that is not well-formed UTF-16 (a lone surrogate, which UTF-8 cannot carry): the caller sends
 * the JSON notification then, which says the same artifact.
 */
static JSValue js_artifact(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return JS_ThrowTypeError(ctx, "__mep.artifact is not available at module top level");
  if (!mep_host_attached() || mep_host.artifact == NULL) return JS_FALSE;
  size_t head_len, content_len;
  const char *head = JS_ToCStringLen(ctx, &head_len, argv[0]);
  if (!head) return JS_EXCEPTION;
  if (head_len < 2 || head[0] != '{' || head[head_len - 1] != '}' || head_len > 0x7fffff00) {
    JS_FreeCString(ctx, head);
    return JS_ThrowTypeError(ctx, "__mep.artifact takes the text of a JSON object as its envelope");
  }
  const char *content = JS_ToCStringLen(ctx, &content_len, argv[1]);
  if (!content) {
    JS_FreeCString(ctx, head);
    return JS_EXCEPTION;
  }
  /* A lone surrogate comes out as ED A0..BF (WTF-8), which is not UTF-8. */
  int well_formed = content_len <= 0x7fffffff;
  for (const char *at = content; well_formed && (at = memchr(at, 0xED, content_len - (size_t)(at - content))) != NULL; at++) {
    if ((size_t)(at - content) + 1 < content_len && (uint8_t)at[1] >= 0xA0) well_formed = 0;
  }
  char *envelope = well_formed ? malloc(head_len + 32) : NULL;
  if (envelope != NULL) {
    memcpy(envelope, head, head_len - 1);
    int n = snprintf(envelope + head_len - 1, 32, "%s\"length\":%lu}", head_len > 2 ? "," : "", (unsigned long)content_len);
    mep_host.artifact((const uint8_t *)envelope, (int32_t)(head_len - 1 + (size_t)n), (const uint8_t *)content, (int32_t)content_len);
    free(envelope);
  }
  JS_FreeCString(ctx, content);
  JS_FreeCString(ctx, head);
  if (well_formed && envelope == NULL) return JS_ThrowOutOfMemory(ctx);
  return JS_NewBool(ctx, well_formed);
}

/* request(json): the host's JSON response, or null when it has none or there is no channel. */
static JSValue js_request(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (mep_initializing) return JS_ThrowTypeError(ctx, "__mep.request is not available at module top level");
  if (!mep_host_attached()) return JS_NULL;
  size_t n;
  const char *s = JS_ToCStringLen(ctx, &n, argv[0]);
  if (!s) return JS_EXCEPTION;
  int32_t rlen = mep_host.request((const uint8_t *)s, (int32_t)n);
  JS_FreeCString(ctx, s);
  if (rlen < 0) return JS_NULL;
  char *buf = malloc((size_t)rlen + 1);
  if (!buf) return JS_ThrowOutOfMemory(ctx);
  int32_t got = rlen > 0 ? mep_host.reply_copy((uint8_t *)buf, rlen) : 0;
  if (got < 0 || got > rlen) got = 0;
  JSValue r = JS_NewStringLen(ctx, buf, (size_t)got);
  free(buf);
  return r;
}

static JSValue js_interrupted(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewBool(ctx, host_interrupt());
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
  return JS_NewBool(ctx, host_random_fill(p + off, (int32_t)len) == (int32_t)len);
}

static JSValue js_math_random(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  if (!rng_seeded_this_call && !mep_initializing) {
    uint64_t seed[2];
    rng_seeded_this_call = 1;
    if (host_random_fill((uint8_t *)seed, sizeof seed) == (int32_t)sizeof seed && (seed[0] | seed[1])) {
      rng_s0 = seed[0];
      rng_s1 = seed[1];
    } else {
      /* Not granted: the same sequence in every call, whatever earlier calls drew; said once. */
      rng_s0 = MEP_RNG_SEED0;
      rng_s1 = MEP_RNG_SEED1;
      mep_random_granted(1);
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
  JS_CFUNC_DEF("hostChannel", 0, js_host_channel),
  JS_CFUNC_DEF("notify", 1, js_notify),
  JS_CFUNC_DEF("request", 1, js_request),
  JS_CFUNC_DEF("artifact", 2, js_artifact),
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
