/**
 * Which V8 tier runs wasm guests in this Node process. V8 starts a module on its baseline compiler
 * (Liftoff) and recompiles hot functions with TurboFan on background threads. For this runtime's
 * guests (one QuickJS interpreter whose dispatch function is huge) that recompiling costs about
 * 0.35 s of CPU, which a short call never wins back and a long one does: `mep compile` of the Elm
 * frontend (Node 20, 2 cores, load 8–14, user CPU) took the 3-module showcase 0.78 s with tier-up
 * and 0.39–0.48 s on Liftoff alone, but the 60-module model 4.0–4.3 s with it and 5.9 s without.
 * So the choice is the caller's, per process (V8 flags are per process), before it compiles a
 * module (V8 fixes a module's tiers when it compiles it): `mep compile` takes it for a small
 * project (cli/commands/compile-tier.ts). A tiering flag given to node itself wins.
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
