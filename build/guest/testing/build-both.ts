/** Test support: one extension source built to both runtimes, as `mep build` would. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuest } from '../build-guest.ts';

/** Builds `entry` to `out.wasm` (wasm) and `out.process` (a process script), without a type check. */
export async function buildBothRuntimes(entry: string, out: { wasm: string; process: string }, cwd: string): Promise<void> {
  await buildGuest({ entry, outFile: out.wasm, cwd, typecheck: false });
  await buildGuest({ entry, outFile: out.process, runtime: 'process', cwd, typecheck: false });
}

/**
 * Writes `source` as `<name>.ts` (and `files` beside it) in a new temporary folder, and builds it
 * there to `<name>.wasm` and `<name>.mjs`.
 */
export async function buildSourceBothRuntimes(name: string, source: string, files: Record<string, string> = {}): Promise<{ dir: string; wasm: string; mjs: string }> {
  const dir = mkdtempSync(join(tmpdir(), `mep-${name}-`));
  for (const [file, text] of Object.entries({ ...files, [`${name}.ts`]: source })) writeFileSync(join(dir, file), text);
  const out = { wasm: join(dir, `${name}.wasm`), process: join(dir, `${name}.mjs`) };
  await buildBothRuntimes(join(dir, `${name}.ts`), out, dir);
  return { dir, wasm: out.wasm, mjs: out.process };
}
