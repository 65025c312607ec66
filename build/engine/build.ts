/**
 * `npm run build:engine`: builds the guest engine into .cache/engine (instant when cached) and
 * prints where it is. Exit code 1 with the reason when the toolchain is missing.
 */
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { ensureEngine, REPO_ROOT } from './index.ts';

const started = performance.now();
try {
  const engine = await ensureEngine();
  const ms = Math.round(performance.now() - started);
  const kb = Math.round(statSync(engine.wasmPath).size / 1024);
  console.log(`engine: ${relative(REPO_ROOT, engine.wasmPath)} (${kb} KB, ${engine.built ? `built in ${ms} ms` : 'cached'})`);
} catch (e) {
  console.error(`engine: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
