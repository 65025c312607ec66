/*
 * Time and randomness as the host grants them (issue 23). Without a clock grant time is
 * virtual: every call starts at 0 (1970-01-01T00:00:00Z) and time moves only when the event
 * loop jumps to the next due timer, so a sleeping guest costs no wall time and a call's result
 * does not depend on when it ran. The first time a call reads the clock (Date, performance.now,
 * console.time) or Math.random without a grant, one warning names the grant that would change it.
 */
#include "engine.h"
#include "platform.h"

/* mep-host.c: the host's clock, 0 while initializing, without a channel or without a grant. */
double mep_host_clock_ms(void);

/* The virtual clock of the current call, in ms since the epoch. */
static double virtual_ms;
/* Whether this call has a real clock: 0 not asked yet, 1 granted, 2 not granted. */
static int clock_state;
static int clock_warned, random_warned;
/* Counts calls, so JS can tell a new call from the same one (performance.timeOrigin). */
static uint32_t call_index;

void mep_platform_begin_call(void) {
  call_index++;
  virtual_ms = 0;
  clock_state = 0;
  clock_warned = 0;
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
  if (observed && !clock_warned) {
    clock_warned = 1;
    mep_platform_log(2, "this extension reads the clock (Date, performance.now or console.time), but the host grants it none: "
                        "time is virtual, 0 (1970-01-01T00:00:00Z) when each call starts and moving only as timers fire. "
                        "To give it the real time, grant the clock: \"permissions\": { \"clock\": true } in extension.json, "
                        "mep --allow-clock for an extension run by path, or grants: { clock: true } in createWasmTransport.");
  }
  return virtual_ms;
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
};

void mep_install_clock(JSContext *ctx, JSValue native) {
  JS_SetPropertyFunctionList(ctx, native, natives, sizeof(natives) / sizeof(natives[0]));
}
