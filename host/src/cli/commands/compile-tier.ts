/**
 * Whether a one-shot `mep compile` is small enough to run its wasm frontend on V8's baseline tier
 * only (transport/wasm/node/wasm-tier.ts). TurboFan's recompiling of the engine's hot functions
 * costs about 0.35 s of CPU and pays back only on a long call. Measured with the Elm frontend
 * (Node 20, 2 cores, load 8–11, user CPU): the 3-module showcase (2.9 KB of sources) 0.78 s with
 * tier-up, 0.48 s without; the 60-module model (310 KB) 4.0–4.3 s with it, 5.9 s without. The
 * crossover is near 70 KB of sources; {@link BASELINE_TIER_MAX_SOURCE_BYTES} stays below it.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isWithin } from '../../files/path-within.ts';
import { useBaselineWasmTier } from '../../transport/wasm/node/wasm-tier.ts';

/** Sources up to this many bytes compile in one call too short for TurboFan to pay back. */
export const BASELINE_TIER_MAX_SOURCE_BYTES = 48 * 1024;

/**
 * True when the files under `sourceDirectory` (relative to `projectDir`, within it, not a link)
 * hold at most `maxBytes` in all, found among at most `maxEntries` entries; false when they hold
 * more, when there are more entries, or when the folder cannot be read (the default tiering then
 * stands, so a wrong answer only costs speed). Links inside are not followed.
 */
export async function sourcesAtMost(projectDir: string, sourceDirectory: string, maxBytes: number, maxEntries = 2000): Promise<boolean> {
  const root = resolve(projectDir, sourceDirectory);
  if (!isWithin(root, resolve(projectDir))) return false;
  let bytes = 0;
  let entries = 0;
  try {
    if (!(await lstat(root)).isDirectory()) return false;
    const folders = [root];
    for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        if (++entries > maxEntries) return false;
        const path = join(folder, entry.name);
        if (entry.isDirectory()) folders.push(path);
        else if (entry.isFile() && (bytes += (await lstat(path)).size) > maxBytes) return false;
      }
    }
  } catch {
    return false;
  }
  return true;
}

/**
 * Chooses V8's baseline tier for the process when the project's sources are small
 * ({@link sourcesAtMost} under {@link BASELINE_TIER_MAX_SOURCE_BYTES}); true when it did. Before the
 * module is compiled: `mep compile` when it runs, and its early start (cli/early-compile.ts), which
 * compiles the module while the command loads, both through this one decision.
 */
export async function chooseProjectTier(projectDir: string, sourceDirectory: string): Promise<boolean> {
  const small = await sourcesAtMost(projectDir, sourceDirectory, BASELINE_TIER_MAX_SOURCE_BYTES);
  if (small) useBaselineWasmTier();
  return small;
}
