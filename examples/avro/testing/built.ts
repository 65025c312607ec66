/**
 * The Avro example built to both runtimes, once per test process (the wasm build is cached by
 * content hash under .cache/guest, so later runs only re-bundle).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { buildGuest } from '../../../build/guest/index.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const outDir = join(root, '.cache', 'examples');
const builds = new Map<string, Promise<string>>();

/** Path of `examples/avro/extension.ts` built for `runtime`. */
export function builtAvro(runtime: 'wasm' | 'process'): Promise<string> {
  let build = builds.get(runtime);
  if (!build) {
    mkdirSync(outDir, { recursive: true });
    const outFile = join(outDir, runtime === 'wasm' ? 'avro.wasm' : 'avro.mjs');
    build = buildGuest({ entry: join(root, 'examples/avro/extension.ts'), outFile, runtime }).then((r) => r.outFile);
    builds.set(runtime, build);
  }
  return build;
}

/** The repository root. */
export const REPO_ROOT = root;
