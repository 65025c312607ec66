/*
 * The guest's platform (issue 23): the globals written in JS under glue/globals/ (timers, URL,
 * console, ...), the event loop that drives a call until its answer settles, and the clock and
 * randomness grants. Kept apart from engine.h so the engine's own glue and this one change
 * independently.
 */
#ifndef MEP_PLATFORM_H
#define MEP_PLATFORM_H

#include "quickjs.h"

/* The globals bundle (generated mep_globals.h) compiled by mep_compile_platform; its text is zeroed. */
uint8_t *mep_globals_bytecode(size_t *size);

/* Evaluates the globals' bytecode (from mep_globals_bytecode; freed) and keeps its event-loop hooks. */
void mep_install_globals(JSContext *ctx, JSValue native, uint8_t *bytecode, size_t size);

/* Resets the per-call state: virtual time back to SOURCE_DATE_EPOCH, the grant looked up afresh, the randomness warning re-armed. */
void mep_platform_begin_call(void);

/*
 * Runs microtasks and timers until `box` (from native.settle) has settled, or nothing is left
 * that could settle it. Returns 0, or -1 with an exception pending (a job threw, the host
 * interrupted the call).
 */
int mep_event_loop(JSContext *ctx, JSValueConst box);

/* Runs microtasks and timers until none is left (module top level), at most `max_timers` timers. */
int mep_event_loop_drain(JSContext *ctx, int max_timers);

/* Drops the timers still pending when a call's answer is ready (a debug log says how many). */
void mep_event_loop_end(JSContext *ctx);

/*
 * The time in ms since the epoch: the host's clock when granted, else the call's virtual time.
 * `observed`: the guest reads it (Date, performance.now), which arms the warning of mep_date_fields_read.
 */
double mep_clock_now_ms(int observed);

/* quickjs.c (build/engine/patches/date-fields.ts): a Date's time value `t` becomes calendar fields. */
void mep_date_fields_read(double t);

/* True when the host grants randomness this call; warns once per call about Math.random otherwise. */
int mep_random_granted(int warn);

/* Logs `text` at `level` (0 debug .. 3 error) through the engine's console channel. */
void mep_platform_log(int level, const char *text);

/* Zeroes the heap's free memory at the end of initialization, so the snapshot carries none of it (scrub.c). */
void mep_scrub_free_memory(void);
/* quickjs.c (build/engine/patches/alloc.ts): zeroes the engine's free small blocks, which stay on
 * its size-class free lists and which malloc, so mep_scrub_free_memory, never sees. */
void JS_MepScrubArenas(JSRuntime *rt);
/* quickjs.c (build/engine/patches/property-arrays.ts): the same for its free property arrays. */
void JS_MepScrubPropArrays(JSRuntime *rt);
/* quickjs.c (build/engine/patches/shapes.ts): every shape lets go of the parent it holds for transitions. */
void JS_MepDropShapeParents(JSRuntime *rt);

#endif
