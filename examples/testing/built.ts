/**
 * The example extensions built once per test process (wasm builds are also cached by content
 * hash under .cache/guest, so later runs only re-bundle).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { buildGuest, type BuildGuestOptions } from '../../build/guest/index.ts';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const outDir = join(REPO_ROOT, '.cache', 'examples');
const builds = new Map<string, Promise<string>>();

/** Path of `examples/<example>/extension.ts` built for `runtime` (with the Intl of `intl`, when given). */
export function builtExample(example: string, runtime: 'wasm' | 'process', intl?: BuildGuestOptions['intl']): Promise<string> {
  return builtEntry(join('examples', example, 'extension.ts'), example, runtime, intl);
}

/** Path of the entry `entry` (relative to the repository) built for `runtime` as `.cache/examples/<name>.wasm|mjs`. */
export function builtEntry(entry: string, name: string, runtime: 'wasm' | 'process', intl?: BuildGuestOptions['intl']): Promise<string> {
  const id = `${name}.${runtime}`;
  let build = builds.get(id);
  if (!build) {
    mkdirSync(outDir, { recursive: true });
    const outFile = join(outDir, `${name}.${runtime === 'wasm' ? 'wasm' : 'mjs'}`);
    build = buildGuest({ entry: join(REPO_ROOT, entry), outFile, runtime, ...(intl ? { intl } : {}) }).then((r) => r.outFile);
    builds.set(id, build);
  }
  return build;
}

/** The Avro example built for `runtime`. */
export function builtAvro(runtime: 'wasm' | 'process'): Promise<string> {
  return builtExample('avro', runtime);
}
