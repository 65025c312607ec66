/*
 * Shared state and helpers of the mep engine glue (quickjs-ng on wasm32, no WASI).
 * One runtime and one context live for the life of the instance.
 */
#ifndef MEP_ENGINE_H
#define MEP_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "quickjs.h"

#define MEP_EXPORT(name) __attribute__((export_name(name)))
#define MEP_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))

/* The JS stack limit stays well below the 1 MiB linker stack (-z stack-size) so that deep
 * recursion raises InternalError before C frames that QuickJS does not check overflow it; and
 * below what the host's own stack can take: each JS call is a frame of JS_CallInternal on the
 * host's native stack too, larger there once V8 optimizes it (TurboFan: about 1.6 times its
 * bytes here, for a call of no arguments or locals). At 640 KiB a recursion of such calls
 * overflowed Node's default stack (984 KiB) first and trapped the call (engine.test.ts). At 512 KiB
 * it did again once the leaf evaluator left JS_CallInternal (patches/leaf-calls.ts, no_inline): its
 * arrays had been part of every JS call's frame here, so the recursion went 1,637 -> 1,926 calls
 * deep while the host's frame per call stayed as large. 432 KiB kept it near the old depth. Again
 * when the work of rare bytecodes left JS_CallInternal (patches/loop-locals.ts): its frame here
 * shrank from about 320 to 208 bytes a call, 1,381 -> 2,125 calls deep, and TurboFan's frame
 * overflowed the host's stack first; 296 KiB keeps the old depth. */
#define MEP_JS_STACK_LIMIT (296 * 1024)

extern JSRuntime *mep_rt;
extern JSContext *mep_ctx;

/* QuickJS's allocator (alloc.c), and the bytes it holds for the runtime. */
extern const JSMallocFunctions mep_malloc_functions;
size_t mep_heap_bytes(void);

/* The GC threshold after collecting a heap of `heap` bytes (alloc.c): quickjs-ng's as edited
 * (mep_gc_grown: 4x a small heap, less as it grows), or, once memory is at its cap, the heap plus
 * half the room left if less. quickjs-ng calls it through mep_gc_next_threshold (patches/runtime.ts). */
size_t mep_gc_threshold(size_t heap);
size_t mep_gc_grown(size_t heap);
extern size_t (*mep_gc_next_threshold)(size_t heap);

/* Bytes the heap can still take before the memory cap (memory.c); SIZE_MAX until the cap is
 * reached (memory could not grow ahead of the heap). */
size_t mep_memory_room(void);

/* Called by sbrk when memory reached its cap: the cycle collector runs at QuickJS's next
 * allocation point instead of waiting for the heap to reach its growth threshold, which it could not. */
void mep_memory_tight(void);

/* Non-zero while the runtime is being initialized (also inside a wizer snapshot): host
 * imports must not be called then, because wizer traps on any import call. */
extern int mep_initializing;

/* Platform JS text to stripped bytecode, compiled in a runtime of its own; the text is zeroed. */
uint8_t *mep_compile_platform(char *src, size_t len, const char *name, size_t *size);
/* Runs (and frees) bytecode from mep_compile_platform in ctx; JS_EXCEPTION on failure. */
JSValue mep_eval_platform(JSContext *ctx, uint8_t *bytecode, size_t size);

/* Creates the runtime and context and installs every global (idempotent). */
void mep_runtime_init(void);

/* Installs the Extism-facing globals (Host, Memory, Config, console natives). */
void mep_install_extism(JSContext *ctx, JSValue native);
/* Installs the MEP host functions (__mep natives, crypto, Math.random) and the interrupt handler. */
void mep_install_host(JSContext *ctx, JSValue native);
/* Installs UTF-8 encode/decode natives used by TextEncoder/TextDecoder. */
void mep_install_text(JSContext *ctx, JSValue native);

/*
 * The MEP host channel (wit/mep-guest.wit, "attach"): eight host functions (nine in version 2) the engine calls
 * through the indirect function table, never as imports, so a module imports only the Extism
 * kernel and runs in any Extism host. All NULL (a foreign host: degraded mode) until a host that
 * has them calls the `mep_host_attach` export; NULL in the snapshot, set per instance.
 * The C types are the ABI: call_indirect checks them against what the host put in the table.
 */
typedef struct {
  int32_t (*input_copy)(uint8_t *dst, int32_t len);
  int32_t (*output_copy)(const uint8_t *src, int32_t len);
  void (*notify)(const uint8_t *ptr, int32_t len);
  int32_t (*request)(const uint8_t *ptr, int32_t len);
  int32_t (*reply_copy)(uint8_t *dst, int32_t len);
  int32_t (*interrupt)(void);
  double (*clock_ms)(void);
  int32_t (*random_fill)(uint8_t *dst, int32_t len);
  /* Version 2 of the attach protocol only (NULL under version 1): a streamed artifact, its JSON
   * envelope and its content's bytes side by side (wit/mep-guest.wit, mep-artifact). */
  void (*artifact)(const uint8_t *envelope, int32_t envelope_len, const uint8_t *content, int32_t content_len);
} MepHostChannel;

extern MepHostChannel mep_host;

/* True when the host attached the channel (never while initializing). */
static inline int mep_host_attached(void) { return !mep_initializing && mep_host.input_copy != NULL; }

/* Called at the start of every exported call (resets per-call state such as the RNG seed). */
void mep_host_begin_call(void);

/* Lets go of the objects WeakRefs kept alive during the last call (patches/weakref.ts). */
void mep_clear_kept(void);

/* Reports the pending exception through Extism error_set ("Name: message\nstack"). */
void mep_report_exception(JSContext *ctx);
/* Reports a plain C string through Extism error_set. */
void mep_report_error(const char *message);
/* Reports the pending exception (or `what`, if it cannot be formatted) and traps: for failures of the engine's own code. */
__attribute__((noreturn)) void mep_fatal_exception(JSContext *ctx, const char *what);

/* Runs queued promise jobs; returns 0, or -1 with the job's exception pending. */
int mep_drain_jobs(JSContext *ctx);

/* If *value is a thenable, drains jobs and replaces it with the settled value; -1 with an
 * exception pending when it rejected or never settled. */
int mep_settle(JSContext *ctx, JSValue *value);

/* Formats the pending exception into a malloc'd UTF-8 string ("Name: message\nstack"). */
char *mep_exception_text(JSContext *ctx, size_t *len);

#endif
