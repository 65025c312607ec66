/**
 * The optimization level of each C file of the engine, shared by the wasm build (compile.ts) and
 * its native twin (native.ts), so callgrind counts the code the sandbox runs. Speed where the
 * interpreter spends its time, size elsewhere: the engine is in every guest, and a small guest
 * must stay within its 1 MiB budget (build/guest/build-guest.test.ts).
 */
import type { QuickjsSource } from './patches/types.ts';

/** A clang (or gcc) optimization flag; -O0 only for the native test builds (scripts/test262/native.ts). */
export type OptFlag = '-Os' | '-Oz' | '-O0' | '-O1' | '-O2' | '-O3';

/**
 * Per quickjs-ng file. Measured (issue 32): quickjs.c at -O2 instead of -Os cuts morphir-elm's
 * compile of a 5-type project from 3,644 M to 3,094 M native instructions (−15 %), but makes the
 * engine 949 KB instead of 755 KB, which no small guest fits in 1 MiB with. Without loop unrolling and
 * vectorization (-O2 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize) quickjs.c's wasm code is still 780 KB
 * against 565 KB at -Os (clang-19, measured 2026-12-02): the size is the inlining, so the hot helpers are made
 * inline one by one instead (patches/inline.ts, patches/fast-paths.ts).
 * Tried and not kept (2026-12-03): quickjs.c at -O2 with every function under clang's `minsize`
 * (`#pragma clang attribute push`; gcc `optimize("Os")` natively) except the hot ones. The engine
 * shrinks (758 → 691 KB with JS_CallInternal alone at -O2, 701 KB with the allocator, the shape,
 * free and property get/set paths too) and the native build gains 0.5–0.7 % (elm 1×5: 2,293 M →
 * 2,277 M / 2,281 M), but V8 runs the wasm code of those -O2 functions worse: the wasm engine
 * executes 9.3 % / 12.3 % more instructions on the same Elm compile (3,401 M → 3,717 M / 3,821 M
 * JIT instructions, node under callgrind with --no-liftoff --no-wasm-tier-up; repeat runs agree
 * within 0.02 %). The whole of quickjs.c at -O2 (973 KB): 3,577 M (+5.2 %); at -O1 (981 KB): 4,327 M
 * vs 3,402 M in the same bench run (+27 %). Speed for the sandbox
 * is not clang's -O2 on the interpreter. Count a change the same way: bench/wasm-callgrind.bench.ts.
 */
export const QUICKJS_OPT: Readonly<Record<QuickjsSource, OptFlag>> = {
  'quickjs.c': '-Os',
  'libregexp.c': '-Os',
  'libunicode.c': '-Os',
  'dtoa.c': '-Os',
};

/**
 * binaryen's passes on the linked engine (compile.ts runs them once, with the npm package's
 * wasm-opt, pinned by the lock; clang's own implicit run at the link's -Os is kept off). Measured
 * (2026-12-04, bench/wasm-callgrind, morphir-elm 1 × 5, V8's code for the engine): clang's -Os run
 * then the guests' -Oz copy 3,131 M; binaryen 132 at -O3 3,091 M (−1.3 %) and 799 KB, at -O2
 * 3,093 M and 804 KB; Debian's binaryen 108 at -O3/-O2 3,088 M; no wasm-opt at all 3,077 M but
 * 918 KB (past a small guest's 1 MiB). -O3 without inlining-optimizing 3,099 M, without
 * merge-locals and local-cse 3,092 M (docs/performance-log.md, helper wasmopt).
 */
export const ENGINE_WASM_OPT: readonly string[] = ['-O3'];

/** The glue (build/engine/glue/): calls in and out of the engine, never hot. */
export const GLUE_OPT: OptFlag = '-Os';

/**
 * The level of the native engines `npm test` builds: the test262 sample's two engines and the
 * heap-fault runner. One constant, so the edited engine's objects are compiled once and shared
 * (./native-object.ts); -O0 because there the compile is most of the cost (scripts/test262/native.ts).
 */
export const TEST_NATIVE_OPT = '-O0' satisfies OptFlag;
