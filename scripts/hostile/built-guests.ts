/** The hostile PDK guests, built to wasm once per process (cached by content under .cache/). */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGuest } from '../../build/guest/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
let logFlood: Promise<string> | undefined;
const artifactFloods = new Map<'wasm' | 'process', Promise<string>>();

/** log-flood-guest.ts built to `.cache/hostile/log-flood.wasm`. */
export function builtLogFlood(): Promise<string> {
  logFlood ??= (async () => {
    const outDir = join(root, '.cache', 'hostile');
    mkdirSync(outDir, { recursive: true });
    const { outFile } = await buildGuest({ entry: join(root, 'scripts/hostile/log-flood-guest.ts'), outFile: join(outDir, 'log-flood.wasm') });
    return outFile;
  })();
  return logFlood;
}

/** artifact-flood-guest.ts built for `runtime` to `.cache/hostile/artifact-flood.{wasm,mjs}`. */
export function builtArtifactFlood(runtime: 'wasm' | 'process'): Promise<string> {
  let built = artifactFloods.get(runtime);
  if (built === undefined) {
    const outDir = join(root, '.cache', 'hostile');
    mkdirSync(outDir, { recursive: true });
    const outFile = join(outDir, `artifact-flood.${runtime === 'wasm' ? 'wasm' : 'mjs'}`);
    built = buildGuest({ entry: join(root, 'scripts/hostile/artifact-flood-guest.ts'), outFile, runtime }).then((result) => result.outFile);
    artifactFloods.set(runtime, built);
  }
  return built;
}
