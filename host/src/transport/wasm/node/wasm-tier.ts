/**
 * Which V8 tier runs wasm guests in this Node process. V8 starts a module on its baseline compiler
 * (Liftoff) and recompiles hot functions with TurboFan on background threads. For this runtime's
 * guests that trade is a loss: the engine is one QuickJS interpreter whose dispatch function is
 * huge, and TurboFan spends more CPU compiling it than the call ever wins back. Measured with
 * `mep compile` of the Elm frontend (Node 20, 2 cores, load ≈ 8): a 3-module project 0.74 → 0.45 s
 * user CPU, the 60-module model 54 s → 6.3 s user CPU (168 s → 23 s wall). So the `mep` command
 * takes the baseline tier only (`--liftoff-only`) before it compiles a module (V8 fixes a module's
 * tiers when it compiles it); a tiering flag given to node itself wins. The library leaves the
 * choice to its host process (the flag is process-wide): call {@link useBaselineWasmTier} first.
 */
import { setFlagsFromString } from 'node:v8';

/** V8 options that choose wasm tiers; given on node's command line, they are left in charge. */
const TIERING_FLAG = /^--(no-)?(liftoff|wasm-dynamic-tiering|wasm-tier|wasm-lazy-compilation)/;

let chosen = false;

/**
 * Makes V8 compile wasm with its baseline tier only, for the whole process (V8 flags are per
 * process), unless node was started with a wasm tiering flag. Idempotent; call it before the
 * first wasm module is compiled (modules compiled earlier keep tiering up).
 *
 * @example
 * useBaselineWasmTier();
 * const module = await compileExtensionModule(bytes, { name: 'elm' });
 */
export function useBaselineWasmTier(): void {
  if (chosen) return;
  chosen = true;
  if (process.execArgv.some((arg) => TIERING_FLAG.test(arg))) return;
  setFlagsFromString('--liftoff-only');
}
