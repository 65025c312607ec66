/**
 * `Atomics` in the wasm engine (issue 33): quickjs-ng 0.17.0 compiles Atomics only where it has
 * threads, so the wasm32-wasi engine had no `Atomics` at all (209 test262 tests failed only in the
 * sandbox). A single-threaded engine can still have every Atomics operation on ordinary and
 * shared buffers (clang lowers the C11 atomics to plain loads and stores without the wasm threads
 * feature); only `Atomics.wait` cannot block, as nothing could wake it: the runtime's can_block
 * stays false and it throws TypeError before waiting, as on a browser's main thread. Native
 * builds (threads) are unchanged.
 */
import type { QuickjsPatch } from './types.ts';

export const ATOMICS_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: '#if !defined(__TINYC__) && !defined(EMSCRIPTEN) && !defined(__wasi__) && !__STDC_NO_ATOMICS__ && !defined(__DJGPP)' },
    op: 'replace',
    text: '#if !defined(__TINYC__) && !defined(EMSCRIPTEN) && !__STDC_NO_ATOMICS__ && !defined(__DJGPP) /* mep engine: Atomics on wasi too */',
    why: 'compile Atomics for wasm32-wasi as well (test262: the Atomics built-ins)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'typedef struct JSAtomicsWaiter {' },
    op: 'before',
    text: String.raw`#if !JS_HAVE_THREADS
/* mep engine: one thread, so nothing to lock; Atomics.wait throws before it would wait (can_block
   is false), so the waits below are never reached */
typedef int js_once_t;
#define JS_ONCE_INIT 0
typedef int js_mutex_t;
typedef int js_cond_t;
static inline void js_once(js_once_t *guard, void (*callback)(void)) { if (!*guard) { *guard = 1; callback(); } }
static inline void js_mutex_init(js_mutex_t *mutex) {}
static inline void js_mutex_lock(js_mutex_t *mutex) {}
static inline void js_mutex_unlock(js_mutex_t *mutex) {}
static inline void js_cond_init(js_cond_t *cond) {}
static inline void js_cond_destroy(js_cond_t *cond) {}
static inline void js_cond_signal(js_cond_t *cond) {}
static inline void js_cond_wait(js_cond_t *cond, js_mutex_t *mutex) { abort(); }
static inline int js_cond_timedwait(js_cond_t *cond, js_mutex_t *mutex, uint64_t timeout) { abort(); }
#endif`,
    why: 'the lock and condition Atomics.wait/notify use, as no-ops in a build without threads (wait never blocks there)',
  },
];
