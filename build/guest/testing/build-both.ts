/** Test support: one extension source built to both runtimes, as `mep build` would. */
import { buildGuest } from '../build-guest.ts';

/** Builds `entry` to `out.wasm` (wasm) and `out.process` (a process script), without a type check. */
export async function buildBothRuntimes(entry: string, out: { wasm: string; process: string }, cwd: string): Promise<void> {
  await buildGuest({ entry, outFile: out.wasm, cwd, typecheck: false });
  await buildGuest({ entry, outFile: out.process, runtime: 'process', cwd, typecheck: false });
}
