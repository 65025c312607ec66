/**
 * Which V8 tier runs wasm guests in this Node process. V8 starts a module on its baseline compiler
 * (Liftoff) and recompiles hot functions with TurboFan on background threads. For this runtime's
 * guests (one QuickJS interpreter whose dispatch function is huge) that recompiling costs about
 * 0.35 s of CPU, which a short call never wins back and a long one does: `mep compile` of the Elm
 * frontend (Node 20, 2 cores, load 8–14, user CPU) took the 3-module showcase 0.78 s with tier-up
 * and 0.39–0.48 s on Liftoff alone, but the 60-module model 4.0–4.3 s with it and 5.9 s without.
 * And a session of many short calls runs on Liftoff until that recompiling is done: the
 * interpreter's function (a 37.6 KB body) costs about 0.2 s of CPU in TurboFan, on a background
 * thread that shares two cores with the guest and whatever else runs, so the first 0.5–2 s of
 * calls are 3× slower (an IR lint call: 17.5 ms of the guest thread's CPU on Liftoff, 5.7 ms on
 * TurboFan) and how many of them depends on the machine's load (docs/performance-log.md,
 * 2026-12-04 16:00). So the choice is the caller's, per process (V8 flags are per process), before
 * it compiles a module (V8 fixes a module's tiers when it compiles it): `mep compile` takes the
 * baseline tier for a small project (cli/commands/compile-tier.ts), `mep serve` the optimising
 * tier (cli/commands/serve.ts). The first choice of a process stands; a tiering flag given to
 * node itself wins over both.
 */
import { setFlagsFromString } from 'node:v8';

/** V8 options that choose wasm tiers; given on node's command line, they are left in charge. */
export const TIERING_FLAG = /^--(no-)?(liftoff|wasm-dynamic-tiering|wasm-tier|wasm-lazy-compilation)/;

/** Each flag this module sets, with the flags that put V8's options back as they were (its implications included). */
const UNDO: Record<string, string> = {
  '--liftoff-only': '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering',
  '--no-liftoff': '--liftoff',
};

let chosen = false;
/** The flag this process set, if it set one. */
let set: string | undefined;

/** Sets `flag` for the whole process unless a tier was chosen already or node was given one. */
function chooseTier(flag: string): void {
  if (chosen) return;
  chosen = true;
  if (process.execArgv.some((arg) => TIERING_FLAG.test(arg))) return;
  setFlagsFromString(flag);
  set = flag;
}

/**
 * The tiering flag this process set ({@link useBaselineWasmTier}, {@link useOptimizingWasmTier}),
 * if it set one: what its other threads are told (V8 flags are per process, this module's state
 * per thread), for the compiled-code cache (compiled-code-cache.ts), which puts V8's flags back to
 * their defaults around its own reads and writes and this flag again after them.
 */
export function wasmTierChoice(): string | undefined {
  return set;
}

/**
 * Puts V8's wasm tiering options back as they were before this process chose a tier, for what
 * compares V8's flags at the end of a process with its start: the `mep` command's JavaScript code
 * cache (cli/code-cache.ts), which V8 accepts only under the flags it was made with. Only as the
 * process ends: modules compiled afterwards would tier up again.
 */
export function undoWasmTierChoice(): void {
  if (set === undefined) return;
  setFlagsFromString(UNDO[set] as string);
  set = undefined;
}

/**
 * Makes V8 compile wasm with its baseline tier only, for the whole process (V8 flags are per
 * process), unless node was started with a wasm tiering flag or the process chose a tier before
 * ({@link useOptimizingWasmTier}). Idempotent; call it before the
 * first wasm module is compiled (modules compiled earlier keep tiering up).
 *
 * @example
 * useBaselineWasmTier();
 * const module = await compileExtensionModule(bytes, { name: 'elm' });
 */
export function useBaselineWasmTier(): void {
  chooseTier('--liftoff-only');
}

/**
 * Makes V8 compile wasm with its optimising tier (TurboFan) only, for the whole process, unless
 * node was started with a wasm tiering flag or the process chose a tier before: for a long-lived
 * host whose sessions make many calls. Each function is compiled once, at its first call, on the
 * thread that calls it: the first call of a module's session pays the compiling (≈ 0.4 s of CPU
 * for the engine's functions an `initialize` runs), and every call after it runs optimised code,
 * with no recompiling in the background beside it. Modules compiled earlier keep their tiers.
 *
 * @example
 * useOptimizingWasmTier();
 * const session = createSession({ transport: await openTransport(spec) });
 */
export function useOptimizingWasmTier(): void {
  chooseTier('--no-liftoff');
}
