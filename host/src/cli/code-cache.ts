/**
 * A CommonJS bundle of the `mep` command run through V8's code cache (cli/cached-cli.ts says
 * which commands). Node 20 has no compile cache for ES modules; `vm.Script` takes V8's cache as
 * `cachedData`. What a process saves: parsing and compiling the bundle's functions to bytecode, on
 * the main thread before the command's first file is read (about 100 ms of CPU for `mep compile`,
 * docs/performance-log.md, 2026-12-04 21:30).
 *
 * The cache is data V8 reads as bytecode, so it is read only when all of these hold, and otherwise
 * the bundle compiles from its source as if there were none (a bad cache is a slower start, never
 * a failure): the file is named by the sha256 of the bundle's bytes and by node (its version, the
 * CPU architecture, its options); it is a regular file (not a link) of this user's that no one else can write, at
 * most {@link MAX_CACHE_BYTES}, in a folder of this user's no one else can write; its own sha256
 * (written in front of it, over its file name and its body, so a cache renamed to another bundle's
 * name fails it) matches, since V8 checks a header (its version, the source's length, its flags)
 * but not the body, and would run a same-length bundle's cache as this one; and V8 accepts it. A
 * cache is written once the bundle has run (so the functions compiled lazily are in it), by a
 * process that found none or one V8 rejected, whole under a fresh name then renamed over, in a
 * directory made mode 0700; a write that fails (a full disk) leaves no partial file.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { readCheckedCache, writeCheckedCache, type CheckedCacheFormat } from '../files/checked-cache-file.ts';

/** The largest cache read (the `mep` command's is about 0.8 MB). */
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/** In front of every cache file: this, then the sha256 of the rest. */
const MAGIC = Buffer.from('mep-v8c2');
/** Cache files of other bundles or node versions kept beside the current one's. */
const KEEP_OTHERS = 3;

/** What became of the cache: V8 took it, there was none, V8 refused it, or it was not read. */
export type CodeCacheUse = 'hit' | 'miss' | 'rejected' | 'refused';

/** A bundle run by {@link loadWithCodeCache}. */
export interface CachedBundle<T> {
  /** The bundle's `module.exports`. */
  exports: T;
  cache: CodeCacheUse;
  /**
   * Writes the cache for the next process, after the bundle ran, unless V8 took this one or V8's
   * flags are no longer the ones the bundle was compiled under (V8 would reject the cache). Never
   * throws; whether it wrote.
   */
  keep(): boolean;
}

/** Options of {@link loadWithCodeCache}. */
export interface CodeCacheOptions {
  /** The CommonJS bundle: ASCII (esbuild's `charset: 'ascii'`), read as latin1 for a one-byte string. */
  bundle: string;
  /** Where its cache files go. */
  cacheDir: string;
  /** Values the bundle sees as free variables beside `require`, `module` and `exports`, by name. */
  globals?: Record<string, unknown>;
  /**
   * Which of the bundle's uses this is (the `mep` command's: its command), when they run different
   * functions of it: a cache file each, holding the functions its use compiled. Default: one file.
   */
  variant?: string;
}

/**
 * The cache file's path for a bundle whose bytes hash to `sha256`, in this node (its version, CPU
 * architecture, and the options it was started with, which V8 would reject another's cache for:
 * `node --no-liftoff-only mep …` and `mep …` keep a cache each rather than rewrite one in turn).
 */
export function codeCachePath(cacheDir: string, sha256: string, variant?: string): string {
  const node = createHash('sha256').update(JSON.stringify([process.version, process.arch, process.execArgv, process.env.NODE_OPTIONS ?? ''])).digest('hex');
  return join(cacheDir, `${sha256.slice(0, 32)}-${node.slice(0, 16)}${variant === undefined ? '' : `-${variantName(variant)}`}.v8c`);
}

/** `variant` as part of a file name: its letters, digits and dashes, at most 32 (another character is dropped). */
const variantName = (variant: string): string => variant.replace(/[^A-Za-z0-9-]/g, '').slice(0, 32);

/** The part of a cache file's name its bundle and node give (what the variants of one bundle share). */
const bundlePart = (name: string): string => name.slice(0, 32 + 1 + 16);

/** The `mep` command's cache files (files/checked-cache-file.ts): the variants of one bundle in one node are kept, of the others the newest few. */
const FORMAT: CheckedCacheFormat = { magic: MAGIC, maxBytes: MAX_CACHE_BYTES, extension: '.v8c', keepOthers: KEEP_OTHERS, groupOf: bundlePart };

/** A script compiled under the flags of now, whose cache tells later whether V8's flags are still these. */
function flagsProbe(): () => boolean {
  const source = '0';
  const data = new Script(source, { filename: 'mep-code-cache-probe' }).createCachedData();
  // Another name, so V8 compiles (and checks the cache) instead of reusing the script it holds.
  return () => !new Script(source, { filename: 'mep-code-cache-probe-check', cachedData: data }).cachedDataRejected;
}

/**
 * Runs the CommonJS `bundle` with its V8 code cache from `cacheDir` when there is a valid one
 * (see the file's header), and returns its exports.
 *
 * @example
 * const loaded = loadWithCodeCache<{ run(): Promise<void> }>({ bundle, cacheDir });
 * process.once('exit', () => loaded.keep());
 * await loaded.exports.run();
 */
export function loadWithCodeCache<T>(options: CodeCacheOptions): CachedBundle<T> {
  const bytes = readFileSync(options.bundle);
  const path = codeCachePath(options.cacheDir, createHash('sha256').update(bytes).digest('hex'), options.variant);
  const cached = readCheckedCache(path, FORMAT);
  const names = Object.keys(options.globals ?? {});
  const source = `(function (exports, require, module, __filename, __dirname${names.map((n) => `, ${n}`).join('')}) {${bytes.toString('latin1')}\n})`;
  const script = new Script(source, { filename: options.bundle, ...(typeof cached === 'object' ? { cachedData: cached } : {}) });
  const cache: CodeCacheUse = typeof cached === 'object' ? (script.cachedDataRejected === true ? 'rejected' : 'hit') : cached;
  const sameFlags = cache === 'hit' ? undefined : flagsProbe();
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(pathToFileURL(options.bundle)), module, options.bundle, dirname(options.bundle), ...names.map((n) => options.globals?.[n]));
  let kept = false;
  return {
    exports: module.exports,
    cache,
    keep() {
      if (sameFlags === undefined || kept || !sameFlags()) return false;
      kept = true;
      try {
        writeCheckedCache(path, script.createCachedData(), FORMAT);
        return true;
      } catch {
        return false;
      }
    },
  };
}
