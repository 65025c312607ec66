/**
 * `npm run build` (and `prepack`): the npm package's contents in dist/.
 *
 *  1. tsc (tsconfig.build.json) compiles the host, the guest PDK, the guest build pipeline and the
 *     browser/workerd entries to ESM JavaScript and `.d.ts`, mirroring the source tree
 *     (`host/src/index.ts` -> `dist/host/src/index.js`), so relative paths between folders and
 *     to the JSON fixtures the conformance suite imports stay the same;
 *  2. relative `.ts` specifiers left in the `.d.ts` files become `.js`, which every TypeScript
 *     resolution mode reads;
 *  3. the guest engine built from this checkout (and its `wasm-opt -Oz` copy) goes to
 *     dist/engine/ with a manifest, so an installed package builds guests without clang.
 *
 * The dev workflow never needs dist/: tests and `bin/mep.mjs` in a checkout run the sources.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureEngine } from '../build/engine/index.ts';
import { SHIPPED_ENGINE_MANIFEST, type ShippedEngineManifest } from '../build/engine/shipped.ts';
import { optimizedEngine } from '../build/guest/optimized-engine.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');
const started = performance.now();

/** Every file under `dir`, recursively. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** `from './x.ts'` / `import('./x.ts')` in a declaration file, relative specifiers only. */
const TS_SPECIFIER = /((?:from\s+|import\s*\(\s*)['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g;

rmSync(dist, { recursive: true, force: true });
try {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
} catch {
  console.error('build: tsc failed (errors above); fix them, then run npm run build again');
  process.exit(1);
}

let rewritten = 0;
for (const file of walk(dist).filter((f) => f.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(TS_SPECIFIER, '$1$2.js$3');
  if (next !== text) {
    writeFileSync(file, next);
    rewritten++;
  }
}

const engine = await ensureEngine();
const optimized = await optimizedEngine(engine);
const engineDir = join(dist, 'engine');
mkdirSync(engineDir, { recursive: true });
const manifest: ShippedEngineManifest = { hash: engine.hash, wasm: basename(engine.wasmPath), optimized: basename(optimized) };
copyFileSync(engine.wasmPath, join(engineDir, manifest.wasm));
copyFileSync(optimized, join(engineDir, manifest.optimized));
writeFileSync(join(engineDir, SHIPPED_ENGINE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);

const files = walk(dist);
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
console.log(
  `build: dist/ ${files.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB (engine ${manifest.hash}, ${rewritten} declaration files rewritten) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
