/**
 * The guest engine: quickjs-ng compiled to wasm32 with the mep glue. It is both a Javy
 * plugin (initialize-runtime, compile-src, invoke, cabi_realloc, import_namespace) and an
 * Extism guest whose MEP host functions are described in wit/mep-guest.wit.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { compileEngine } from './compile.ts';
import { readShippedEngine } from './shipped.ts';

export { IMPORT_NAMESPACE, STACK_SIZE } from './compile.ts';
export { QUICKJS_DEB, QUICKJS_VERSION } from './quickjs-source.ts';
export { findToolchain, type Toolchain } from './toolchain.ts';
export { createEngineRunner, type EngineRunner, type CompileResult } from './runner.ts';
export { createStubHost, type StubHost, type StubHostOptions } from './stub-host.ts';

const here = dirname(fileURLToPath(import.meta.url));
/** True when this module runs compiled from the npm package (`dist/build/engine/index.js`). */
const COMPILED = import.meta.url.endsWith('.js');

/**
 * The repository root, or the installed package's root: two levels above build/engine, three
 * from the compiled `dist/build/engine`.
 */
export const REPO_ROOT = COMPILED ? join(here, '..', '..', '..') : join(here, '..', '..');

/** Default cache folder of the engine build (`.cache/engine` at the repository root, gitignored). */
export const ENGINE_CACHE_DIR = join(REPO_ROOT, '.cache', 'engine');

/** The engine module on disk. */
export interface Engine {
  /** Path of the engine wasm (named by the hash of its inputs). */
  wasmPath: string;
  /** Hash of every input (QuickJS integrity, compiler, flags, glue sources). */
  hash: string;
  /** True when this call compiled anything. */
  built: boolean;
}

/** Options for {@link ensureEngine}. */
export interface EnsureEngineOptions {
  /**
   * Cache folder; defaults to {@link ENGINE_CACHE_DIR}. Compiled from the npm package, no
   * folder given means the engine shipped in `dist/engine` (no compiler needed).
   */
  cacheDir?: string;
}

const pending = new Map<string, Promise<Engine>>();

/**
 * Returns the engine, building it on first use (about 15 s, libquickjs once) and from the cache
 * afterwards. Throws `MepError` with code `ERR_BUILD` when the toolchain is missing.
 *
 * @example
 * const { wasmPath } = await ensureEngine();
 */
export function ensureEngine(options: EnsureEngineOptions = {}): Promise<Engine> {
  if (COMPILED && options.cacheDir === undefined) {
    try {
      return Promise.resolve(readShippedEngine(join(REPO_ROOT, 'dist', 'engine')));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  const cacheDir = options.cacheDir ?? ENGINE_CACHE_DIR;
  let p = pending.get(cacheDir);
  if (!p) {
    p = compileEngine(join(here, 'glue'), cacheDir);
    pending.set(cacheDir, p);
    p.catch(() => pending.delete(cacheDir)); // a failed build may be retried; the caller sees the rejection
  }
  return p;
}
