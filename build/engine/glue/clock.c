/*
 * Time and randomness as the host grants them (issue 23, issue 33). Without a clock grant time is
 * virtual and reproducible: every call starts at one fixed instant, the host's
 * SOURCE_DATE_EPOCH (reproducible-builds.org: whole seconds since 1970, read from the Extism
 * config entry of that name once per instance; 2000-01-01T00:00:00Z when the host sets none),
 * and moves only when the event loop jumps to the next due timer, so a sleeping guest costs no
 * wall time and a call's result does not depend on when it ran. The module's top level (run
 * when the guest is built) sees the default instant.
 *
 * The clock warning is given once per instance, and only when a result could depend on the
 * clock: when a date read from it is turned into calendar fields or text (quickjs.c's
 * get_date_fields, build/engine/patches/date-fields.ts). Timing alone (Date.now() or
 * performance.now() differences, console.time) never warns, so a library that times itself stays
 * quiet. Math.random without a grant warns once per call.
 */
#include <stdlib.h>
#include "engine.h"
#include "platform.h"

/* mep-host.c: the host's clock, 0 while initializing, without a channel or without a grant. */
double mep_host_clock_ms(void);
/* extism.c: the host's Extism config entry `key` in `out` (NUL-terminated), its length or -1. */
int mep_config_text(const char *key, char *out, size_t cap);

/* 2000-01-01T00:00:00Z, in ms: a valid date for every format (ZIP's 1980-2099 included). */
#define MEP_DEFAULT_EPOCH_MS 946684800000.0
/* The largest time value a Date holds (ECMA-262, 8.64e15 ms). */
#define MEP_MAX_TIME_MS 8.64e15

/* The virtual clock of the current call, in ms since the epoch. */
static double virtual_ms = MEP_DEFAULT_EPOCH_MS;
/* The instant every call starts at (ms), read from the host at the first call; -1 before. */
static double epoch_ms = -1;
/* The latest virtual time the guest read in this instance, and whether it read one at all. */
static double read_high;
static int clock_read;
/* Whether this call has a real clock: 0 not asked yet, 1 granted, 2 not granted. */
static int clock_state;
static int clock_warned, random_warned;
/* Counts calls, so JS can tell a new call from the same one (performance.timeOrigin). */
static uint32_t call_index;

/* SOURCE_DATE_EPOCH as the host sets it: decimal digits only, at most the largest Date. */
static double source_epoch_ms(void) {
  if (epoch_ms >= 0) return epoch_ms;
  char text[24];
  int n = mep_config_text("SOURCE_DATE_EPOCH", text, sizeof text);
  epoch_ms = MEP_DEFAULT_EPOCH_MS;
  if (n < 0) return epoch_ms;
  double seconds = 0;
  int ok = n > 0;
  for (int i = 0; i < n && ok; i++) {
    if (text[i] < '0' || text[i] > '9') ok = 0;
    else seconds = seconds * 10 + (text[i] - '0');
  }
  if (ok && seconds * 1000 <= MEP_MAX_TIME_MS) epoch_ms = seconds * 1000;
  else mep_platform_log(2, "the host's SOURCE_DATE_EPOCH is not a whole number of seconds since 1970 (at most 8640000000000): "
                           "the clock starts at 2000-01-01T00:00:00Z instead");
  return epoch_ms;
}

void mep_platform_begin_call(void) {
  call_index++;
  virtual_ms = source_epoch_ms();
  clock_state = 0;
  random_warned = 0;
}

/* The host answers 0 when it grants no clock (and nothing is asked while initializing). */
static int clock_granted(void) {
  if (clock_state == 0) clock_state = mep_host_clock_ms() > 0 ? 1 : 2;
  return clock_state == 1;
}

double mep_clock_now_ms(int observed) {
  if (mep_initializing) return virtual_ms;
  if (clock_granted()) return mep_host_clock_ms();
  if (observed) {
    clock_read = 1;
    if (virtual_ms > read_high) read_high = virtual_ms;
  }
  return virtual_ms;
}

/*
 * quickjs.c calls this whenever a Date's time value `t` is turned into calendar fields (its
 * getters, setters, toISOString, toString, ...): a time the virtual clock gave means a result
 * that shows the fixed instant instead of the real time, so the instance warns, once.
 */
void mep_date_fields_read(double t) {
  if (!clock_read || clock_warned || mep_initializing) return;
  if (t < epoch_ms || t > read_high) return;
  clock_warned = 1;
  mep_platform_log(2, "this extension shows a date read from the clock, but the host grants it no clock: time is fixed at "
                      "the host's SOURCE_DATE_EPOCH (2000-01-01T00:00:00Z unless set) when each call starts and moves only as timers fire, "
                      "so the date is that instant, the same in every run. To give it the real time, grant the clock: "
                      "\"permissions\": { \"clock\": true } in extension.json, mep --allow-clock for an extension run by path, or "
                      "grants: { clock: true } in createWasmTransport; to pick the instant, set SOURCE_DATE_EPOCH.");
}

int mep_random_granted(int warn) {
  if (mep_initializing) return 0;
  if (warn && !random_warned) {
    random_warned = 1;
    mep_platform_log(2, "this extension calls Math.random, but the host grants it no randomness: Math.random returns the same "
                        "sequence in every call. To make it random, grant randomness: \"permissions\": { \"random\": true } in "
                        "extension.json, mep --allow-random for an extension run by path, or grants: { random: true } in createWasmTransport.");
  }
  return 0;
}

/* loopNow(): the event loop's time, read without warning (timers alone do not observe the clock). */
static JSValue js_loop_now(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewFloat64(ctx, mep_clock_now_ms(0));
}

/* clockNow(): the guest reads the time (performance.now); warns once per call without a grant. */
static JSValue js_clock_now(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewFloat64(ctx, mep_clock_now_ms(1));
}

/* clockStart(): the virtual time this call started at (SOURCE_DATE_EPOCH, in ms). */
static JSValue js_clock_start(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewFloat64(ctx, mep_initializing ? MEP_DEFAULT_EPOCH_MS : source_epoch_ms());
}

/* clockGranted(): true when this call has the host's clock (asks the host once per call). */
static JSValue js_clock_granted(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewBool(ctx, !mep_initializing && clock_granted());
}

static int host_interrupted(void) { return mep_host_attached() && mep_host.interrupt() != 0; }

/*
 * loopWait(due): returns once the loop's time has reached `due`. Virtual time jumps there; a
 * granted clock is waited for, polling the host's interrupt so a deadline or cancel still stops
 * the call (InternalError "interrupted").
 */
static JSValue js_loop_wait(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  double due;
  if (JS_ToFloat64(ctx, &due, argv[0])) return JS_EXCEPTION;
  if (mep_initializing || !clock_granted()) {
    if (due > virtual_ms) virtual_ms = due;
    return JS_UNDEFINED;
  }
  while (mep_host_clock_ms() < due) {
    if (host_interrupted()) return JS_ThrowInternalError(ctx, "interrupted");
  }
  return JS_UNDEFINED;
}

/* callIndex(): which call this is (0 while initializing). */
static JSValue js_call_index(JSContext *ctx, JSValueConst this, int argc, JSValueConst *argv) {
  return JS_NewUint32(ctx, mep_initializing ? 0 : call_index);
}

static const JSCFunctionListEntry natives[] = {
  JS_CFUNC_DEF("callIndex", 0, js_call_index),
  JS_CFUNC_DEF("loopNow", 0, js_loop_now),
  JS_CFUNC_DEF("loopWait", 1, js_loop_wait),
  JS_CFUNC_DEF("clockNow", 0, js_clock_now),
  JS_CFUNC_DEF("clockGranted", 0, js_clock_granted),
  JS_CFUNC_DEF("clockStart", 0, js_clock_start),
};

void mep_install_clock(JSContext *ctx, JSValue native) {
  JS_SetPropertyFunctionList(ctx, native, natives, sizeof(natives) / sizeof(natives[0]));
}
