/**
 * A command that runs a `.wasm` extension file given by path (the launch plan's `moduleFile`:
 * `mep compile|generate|validate|transform --extension ./x.wasm`, `mep call ./x.wasm`), the runs
 * whose start-up counts (the small Elm project's and the Avro row's, issue 32), through
 * dist/cli/compile.cjs (the whole command as one CommonJS file) and V8's code cache (code-cache.ts)
 * in `$MEP_HOME/cache/v8-code`, one cache per command (each holds the functions its command
 * compiled). The wasm worker thread starts first, before the bundle loads, as the early start
 * would; the bundle adopts it. Only where the bundle is (the npm package's dist/); from a
 * checkout's sources, and for every other command line, bin.ts runs the ES modules as before.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mepHome } from '../registry/mep-home.ts';
import { startEarlyWorkerThread } from '../transport/wasm/node/early-thread.ts';
import { launchPlanOf, type LaunchPlan } from './early-start.ts';
import type { runCli } from './run-cli.ts';

/** The bundle's file name in dist/cli/. */
export const CACHED_BUNDLE = 'compile.cjs';

/** What the bundle exports (compile-entry.ts). */
interface CompileEntry {
  runCli: typeof runCli;
  undoWasmTierChoice(): void;
}

/** The bundle beside the command's chunks, if this is a build that has one. */
function bundlePath(): string | undefined {
  const url = new URL(`../../../cli/${CACHED_BUNDLE}`, import.meta.url);
  return url.protocol === 'file:' && existsSync(fileURLToPath(url)) ? fileURLToPath(url) : undefined;
}

/** Where the code cache is kept: beside the other caches of the user scope. */
export const codeCacheDirectory = (cwd = process.cwd()): string => join(mepHome(cwd), 'cache', 'v8-code');

/** Runs `argv` through the cached bundle when its `plan` says so (see the file's header); false when it does not. */
export async function runCachedCli(argv: string[], plan: LaunchPlan = launchPlanOf(argv)): Promise<boolean> {
  if (plan.moduleFile === undefined) return false;
  const bundle = bundlePath();
  if (bundle === undefined) return false;
  // Started before anything else loads (node:crypto and node:vm included): its boot is the longer wait.
  const thread = startEarlyWorkerThread();
  const { loadWithCodeCache } = await import('./code-cache.ts');
  const loaded = loadWithCodeCache<CompileEntry>({
    bundle,
    cacheDir: codeCacheDirectory(),
    variant: plan.command,
    // Resolved from here: the same package, so the same node_modules as the bundled modules'.
    globals: { __mepBundleUrl: new URL(`../../../cli/${CACHED_BUNDLE}`, import.meta.url).href, __mepImport: (specifier: string) => import(specifier), __mepResolve: (specifier: string) => import.meta.resolve(specifier) },
  });
  if (loaded.cache !== 'hit') {
    process.once('exit', () => {
      loaded.exports.undoWasmTierChoice();
      loaded.keep();
    });
  }
  await loaded.exports.runCli(argv, thread, plan);
  return true;
}
