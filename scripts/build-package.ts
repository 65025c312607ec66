/**
 * `npm run build` (and `prepack`): the npm package's contents in dist/.
 *
 *  1. tsc (tsconfig.build.json) compiles the host, the test kit (`mep-runtime/testing`, with the
 *     sample IR it imports as JSON), the guest PDK, the guest build pipeline and the
 *     browser/workerd entries to ESM JavaScript and `.d.ts`, mirroring the source tree
 *     (`host/src/index.ts` -> `dist/host/src/index.js`), so relative paths between folders and
 *     to the JSON fixtures the conformance suite imports stay the same;
 *  2. relative `.ts` specifiers left in the `.d.ts` files become `.js`, which every TypeScript
 *     resolution mode reads;
 *  3. the declarations of the guest's globals (build/guest/types/*.d.ts, which tsc does not copy)
 *     go beside the compiled guest-globals.js, where `mep build`'s check reads them and where
 *     `mep-runtime/guest-pdk/globals` points;
 *  4. the guest engine built from this checkout (and its guests' copy) goes to
 *     dist/engine/ with a manifest, so an installed package builds guests without clang;
 *  5. the Node worker entry is bundled beside worker.js, so workers start without esbuild, and
 *     the browser's worker script (`mep-wasm-worker.js`) beside web-worker-spawner.js, its default URL;
 *  6. the `mep` command is bundled from the compiled files into a few chunks in dist/cli/ (one
 *     per lazily loaded command group), so a command reads a handful of files instead of some
 *     hundred modules of ours, zod's and semver's (about 130 ms less per `mep generate`). Each
 *     bundled module that locates files through `import.meta.url` keeps its dist/ location, so
 *     the engine, the PDK sources and the worker entry are found where tsc put them;
 *  7. the command bundled again as one CommonJS file (dist/cli/compile.cjs), which the commands
 *     that run a .wasm file given by path (compile, generate, validate, transform, call) run with
 *     V8's code cache (host/src/cli/cached-cli.ts).
 *
 * The dev workflow never needs dist/: tests and `bin/mep.mjs` in a checkout run the sources.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { ensureEngine } from '../build/engine/index.ts';
import { SHIPPED_ENGINE_MANIFEST, type ShippedEngineManifest } from '../build/engine/shipped.ts';
import { optimizedEngine } from '../build/guest/optimized-engine.ts';
import { writeGuestTypes } from '../build/guest/types/guest-globals.ts';
import { PREBUILT_WORKER_ENTRY, workerEntryBuildOptions } from '../host/src/transport/wasm/node/worker-bundle.ts';
import { PREBUILT_BODY_WORKER } from '../host/src/serve/body-off-thread.ts';
import { CACHED_BUNDLE } from '../host/src/cli/cached-cli.ts';

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

// The guest side of Intl is JavaScript bundled into guests as it is (tsc copies no .js).
const intlRuntime = join(root, 'build', 'guest', 'intl', 'runtime');
mkdirSync(join(dist, 'build', 'guest', 'intl', 'runtime'), { recursive: true });
for (const file of readdirSync(intlRuntime).filter((f) => f.endsWith('.js'))) copyFileSync(join(intlRuntime, file), join(dist, 'build', 'guest', 'intl', 'runtime', file));

const guestTypes = writeGuestTypes(join(dist, 'build', 'guest', 'types'));
const exported = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types?: string }> }).exports['./guest-pdk/globals']?.types;
if (exported === undefined || join(root, exported) !== guestTypes) {
  console.error(`build: package.json's "./guest-pdk/globals" export must point at ${relative(root, guestTypes)}`);
  process.exit(1);
}

const engine = await ensureEngine();
const optimized = await optimizedEngine(engine);
const engineDir = join(dist, 'engine');
mkdirSync(engineDir, { recursive: true });
const manifest: ShippedEngineManifest = { hash: engine.hash, wasm: basename(engine.wasmPath), optimized: basename(optimized) };
copyFileSync(engine.wasmPath, join(engineDir, manifest.wasm));
copyFileSync(optimized, join(engineDir, manifest.optimized));
writeFileSync(join(engineDir, SHIPPED_ENGINE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);

const workerDir = join(dist, 'host', 'src', 'transport', 'wasm', 'node');
await build({ ...workerEntryBuildOptions(join(workerDir, 'worker-entry.js')), format: 'cjs', outfile: join(workerDir, PREBUILT_WORKER_ENTRY) });
// The thread that reads a large HTTP request body (serve/body-off-thread.ts looks for it beside itself).
const serveDir = join(dist, 'host', 'src', 'serve');
await build({ ...workerEntryBuildOptions(join(serveDir, 'body-worker.js')), outfile: join(serveDir, PREBUILT_BODY_WORKER) });
// The browser's worker script, beside web-worker-spawner.js where createWebWorkerSpawner looks
// for it by default (a page's bundler copies it with the module that references it).
const browserDir = join(dist, 'embed', 'browser', 'src');
await build({ entryPoints: [join(browserDir, 'worker-entry.js')], outfile: join(browserDir, 'mep-wasm-worker.js'), bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, logLevel: 'silent' });

const cliDir = join(dist, 'cli');
/**
 * `import.meta.url` in a bundled module of ours becomes the URL of its compiled file in dist/,
 * relative to `base`: the chunk's own `import.meta.url`, or in the CommonJS bundle (which has no
 * `import.meta`) the `__mepBundleUrl` that cli/cached-cli.ts passes it, with `import.meta.resolve`
 * and the dynamic imports of the packages left external (`import('esbuild')`) through its `__mepResolve` and
 * `__mepImport` (a CommonJS script run by `vm` has no `import()` of its own without a flag).
 */
function keepModuleLocations(base: 'import.meta.url' | '__mepBundleUrl'): Plugin {
  return {
    name: 'keep-module-locations',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(dist + sep) || args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        let contents = readFileSync(args.path, 'utf8');
        if (base === '__mepBundleUrl') contents = contents.replaceAll('import.meta.resolve(', '__mepResolve(').replace(EXTERNAL_IMPORT, '__mepImport(');
        if (!contents.includes('import.meta.url')) return { contents, loader: 'js' };
        const location = relative(cliDir, args.path).split(sep).join('/');
        return { contents: contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(location)}, ${base}).href`), loader: 'js' };
      });
    },
  };
}
/** A dynamic import of a package left external, or of a computed specifier (every other one esbuild bundles). */
const EXTERNAL_IMPORT = /\bimport\((?=\s*(?:["'](?:esbuild|typescript|binaryen|@bytecodealliance\/wizer|tsx)["'/]|[A-Za-z_]))/g;
const cliBuild = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Native binaries, a compiler and a loader: resolved from node_modules at run time, and only
  // by the commands that build.
  external: ['esbuild', 'typescript', 'binaryen', '@bytecodealliance/wizer', 'tsx', 'tsx/*'],
  logLevel: 'warning',
} satisfies BuildOptions;
await build({
  ...cliBuild,
  entryPoints: [join(dist, 'host', 'src', 'cli', 'bin.js')],
  outdir: cliDir,
  splitting: true,
  format: 'esm',
  // Bundled CommonJS (semver) may call require().
  banner: { js: "import { createRequire as __mepCreateRequire } from 'node:module'; const require = __mepCreateRequire(import.meta.url);" },
  plugins: [keepModuleLocations('import.meta.url')],
});
// The command as one CommonJS file, run with V8's code cache by the commands of a .wasm file (cli/cached-cli.ts).
// ASCII, so that it is read as a one-byte string (non-ASCII text is left only in comments).
await build({ ...cliBuild, entryPoints: [join(dist, 'host', 'src', 'cli', 'compile-entry.js')], outfile: join(cliDir, CACHED_BUNDLE), format: 'cjs', charset: 'ascii', plugins: [keepModuleLocations('__mepBundleUrl')] });
if (/\bimport\.meta\b(?!")/.test(readFileSync(join(cliDir, CACHED_BUNDLE), 'utf8'))) {
  console.error(`build: dist/cli/${CACHED_BUNDLE} uses import.meta, which a CommonJS script does not have`);
  process.exit(1);
}

const files = walk(dist);
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
console.log(
  `build: dist/ ${files.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB (engine ${manifest.hash}, ${rewritten} declaration files rewritten) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
