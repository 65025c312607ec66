/**
 * How the Node worker entry (worker-entry.ts) becomes one self-contained module: bundled with
 * esbuild, `node:wasi` replaced by a stub because the sandbox never enables WASI. `npm run build`
 * writes it, as CommonJS, beside the compiled worker.js ({@link PREBUILT_WORKER_ENTRY}), so an
 * installed package starts workers without esbuild; a checkout bundles it once per process as an
 * ES module (about 40 ms).
 */
import type { BuildOptions } from 'esbuild';

/**
 * The prebuilt bundle's file name, beside worker.js in dist/: CommonJS, which a thread boots
 * 15–20 ms of CPU sooner than an ES module (Node 20 sets up no ES module loader for it;
 * docs/performance-log.md, 2026-12-04 21:30).
 */
export const PREBUILT_WORKER_ENTRY = 'worker-entry.bundle.cjs';

/** esbuild options that bundle `entry` (the worker entry's path) into one ES module. */
export function workerEntryBuildOptions(entry: string): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    plugins: [
      {
        name: 'no-wasi',
        setup(b) {
          b.onResolve({ filter: /^(node:)?wasi$/ }, () => ({ path: 'wasi', namespace: 'mep-no-wasi' }));
          b.onLoad({ filter: /.*/, namespace: 'mep-no-wasi' }, () => ({
            contents: 'export class WASI { constructor() { throw new Error("WASI is disabled in the MEP wasm sandbox"); } }',
          }));
        },
      },
    ],
  };
}
