/** The hostile PDK guests, built to wasm once per process (cached by content under .cache/). */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGuest } from '../../build/guest/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
let logFlood: Promise<string> | undefined;

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
