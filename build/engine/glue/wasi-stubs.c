/*
 * Local definitions of the few WASI functions wasi-libc pulls in. Defining the
 * `__imported_wasi_snapshot_preview1_*` symbols makes wasm-ld resolve them here instead of
 * emitting imports, so the engine imports nothing outside the extism:host namespaces (no WASI at all).
 * The clock reads the host-granted time, or the call's virtual time without a grant (clock.c).
 */
#include <stdint.h>

extern double mep_clock_now_ms(int observed);

#define WASI_ERRNO_BADF 8
#define WASI_ERRNO_NOSYS 52

int32_t __imported_wasi_snapshot_preview1_clock_time_get(int32_t id, int64_t precision, int32_t out) {
  double ms = mep_clock_now_ms(1); /* Date.now, new Date(), performance.now */
  /* Whole ms and the fraction apart: ms * 1e6 as a double (past 2^53 ns) can fall short of a
   * whole ms, and Date.now() would read one ms early. */
  uint64_t whole = ms > 0 ? (uint64_t)ms : 0;
  uint64_t frac = ms > 0 ? (uint64_t)((ms - (double)whole) * 1e6) : 0;
  *(uint64_t *)(uintptr_t)out = whole * 1000000u + frac;
  return 0;
}

int32_t __imported_wasi_snapshot_preview1_fd_write(int32_t fd, int32_t iovs, int32_t n, int32_t out) {
  /* No stdout/stderr: report everything as written so stdio never retries. */
  uint32_t total = 0;
  for (int32_t i = 0; i < n; i++) total += ((uint32_t *)(uintptr_t)iovs)[i * 2 + 1];
  *(uint32_t *)(uintptr_t)out = total;
  return 0;
}

int32_t __imported_wasi_snapshot_preview1_fd_close(int32_t fd) { return WASI_ERRNO_BADF; }

int32_t __imported_wasi_snapshot_preview1_fd_seek(int32_t fd, int64_t off, int32_t whence, int32_t out) {
  return WASI_ERRNO_BADF;
}

int32_t __imported_wasi_snapshot_preview1_fd_fdstat_get(int32_t fd, int32_t out) { return WASI_ERRNO_BADF; }

int32_t __imported_wasi_snapshot_preview1_fd_read(int32_t fd, int32_t iovs, int32_t n, int32_t out) {
  return WASI_ERRNO_BADF;
}

int32_t __imported_wasi_snapshot_preview1_environ_sizes_get(int32_t count, int32_t size) {
  *(uint32_t *)(uintptr_t)count = 0;
  *(uint32_t *)(uintptr_t)size = 0;
  return 0;
}

int32_t __imported_wasi_snapshot_preview1_environ_get(int32_t environ, int32_t buf) { return 0; }

_Noreturn void __imported_wasi_snapshot_preview1_proc_exit(int32_t code) { __builtin_trap(); }
