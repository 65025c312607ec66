/**
 * `buildGuest`: one TypeScript entry to a sandboxed wasm guest (type check → esbuild bundle →
 * QuickJS bytecode through the engine's compile-src → snapshot of the initialized engine, taken in
 * this process or, with `snapshot: 'wizer'`, by wizer → byte-level link → wasm-opt dead-code
 * pass), or to one executable Node file for the process runtime. The engine is optimized by its own build (binaryen -O3) once and cached, so a guest
 * build runs no full optimizer. Wasm outputs are cached by content hash.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { writeBuildRecord } from '../../host/src/registry/build-record.ts';
import { SOURCE_MAP_SECTION } from '../../host/src/transport/source-map/wasm-section.ts';
import { ensureEngine, REPO_ROOT } from '../engine/index.ts';
import { bundleGuest } from './bundle.ts';
import { bundleCachePath, cachedBundle, storeBundle } from './bundle-cache.ts';
import type { IntlOptions, IntlPlan } from './intl/intl-module.ts';
import type { DependencyWarning } from './dependency-globals.ts';
import { appendCustomSection } from './internal/wasm-binary.ts';
import { compileBundle, type Snapshotter } from './bytecode.ts';
import { projectRootOf } from './bundle-map.ts';
import { buildFailure } from './diagnostics.ts';
import { compileWithExtismJs } from './extism-js.ts';
import { engineLayout, linkGuest } from './link.ts';
import { optimizedEngine } from './optimized-engine.ts';
import { removeUnused } from './tools.ts';
import { checkInWorker } from './typecheck-pool.ts';
import { replaceFile } from './internal/replace-file.ts';

const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** Bumped when the pipeline changes what it produces for the same inputs. */
const PIPELINE_VERSION = 'mep-guest-6';

/** The bundler's own code: a changed mep-runtime never takes a bundle an older one cached. */
const BUNDLER_TEXT = createHash('sha256')
  .update(['./bundle.ts', './bundle-map.ts', './dependency-globals.ts', './intl/intl-module.ts'].map((f) => readFileSync(new URL(f.replace(/\.ts$/, EXT), import.meta.url), 'utf8')).join('\0'))
  .digest('hex');

/** Default cache folder for built guests. */
export const GUEST_CACHE_DIR = join(REPO_ROOT, '.cache', 'guest');

/** Options for {@link buildGuest}. */
export interface BuildGuestOptions {
  /** The TypeScript (or JavaScript) entry module. */
  entry: string;
  /** Where to write the result (`.wasm` or, for process, `.mjs`). */
  outFile: string;
  /** `wasm` (default): sandboxed Extism guest; `process`: one Node ESM file. */
  runtime?: 'wasm' | 'process';
  /** `mep` (default): this project's engine; `extism-js`: the upstream compiler if on PATH. */
  compiler?: 'mep' | 'extism-js';
  /** Type-check before building (default true). */
  typecheck?: boolean;
  /**
   * Optimize (default true): build on the engine's stripped copy (made once per engine and
   * cached) and drop the code only the snapshot used.
   */
  optimize?: boolean;
  /**
   * Write the module before the dead-code pass and run the pass after (`mep build --watch`): the
   * output is usable at once, and replaced by the optimized module when the pass ends, unless a
   * newer build of the same output was placed first. The result's `optimized` settles then.
   */
  deferOptimize?: boolean;
  /**
   * Nothing is written before this settles (`mep build --watch`: the files have been quiet for
   * the debounce); when it rejects, the build writes nothing and rejects with its error (a newer
   * change superseded the build). The work runs meanwhile.
   */
  publish?: Promise<void>;
  /**
   * Keep esbuild's contexts between the builds of this process (`mep build --watch`): a rebuild
   * parses only the files that changed. `disposeBundleContexts()` ends them.
   */
  incremental?: boolean;
  /**
   * Who takes the snapshot of the initialized engine: `node` (default, in this process, fastest)
   * or `wizer` (npm `@bytecodealliance/wizer`). Both give a module with the same imports,
   * exports and behaviour.
   */
  snapshot?: Snapshotter;
  /**
   * Keep the bundle's source map (default true): in the wasm's `mep.sourcemap` custom section, or
   * beside a process build as `<out>.map`. The host maps guest stacks through it.
   */
  sourceMap?: boolean;
  /** Put the sources' text in the map too (default false: the map names files, it does not ship them). */
  sourcesContent?: boolean;
  /** Cache folder (default `.cache/guest` at the repository root). */
  cacheDir?: string;
  /** Folder diagnostics are relative to (default process.cwd()). */
  cwd?: string;
  /**
   * The locales (beyond `en`) and time zones (beyond those the code names) a wasm guest that uses
   * Intl carries (`mep build --locale`, `--time-zone`); ignored by a guest that uses none.
   */
  intl?: IntlOptions;
}

/** What {@link buildGuest} produced. */
export interface BuildGuestResult {
  outFile: string;
  runtime: 'wasm' | 'process';
  /** Size of the output in bytes (with the source map section of a wasm guest). */
  size: number;
  /** Bytes of source map the build kept (in the module, or in the `.map` file), 0 without. */
  sourceMapBytes: number;
  /** Every file the bundle was made from (absolute paths). */
  inputs: string[];
  /** Extism exports of a wasm guest (empty for process). */
  exports: string[];
  /** True when the wasm came from the cache. */
  cached: boolean;
  /** Milliseconds per stage. */
  timings: Record<string, number>;
  /** The Intl a wasm guest carries (services, locales, zones, bytes of JavaScript); absent without. */
  intl?: IntlPlan & { bytes: number };
  /** Globals the sandbox lacks that the wasm guest's packages use, each with what to do. */
  warnings: DependencyWarning[];
  /**
   * With `deferOptimize`, settles when the deferred dead-code pass ended (never rejects):
   * `optimized` (the module was replaced), `superseded` (a newer build of the same output started
   * first: the pass was stopped, or its module not placed) or `failed` (the linked module stays).
   */
  optimized?: Promise<DeferredPass>;
}

/** How a deferred dead-code pass ended ({@link BuildGuestResult.optimized}). */
export type DeferredPass = 'optimized' | 'superseded' | 'failed';

/** The bundle cache entries whose builds esbuild keeps a context for in this process (a watch). */
const keptBundles = new Set<string>();

/** The latest build of each output file, so a deferred pass never replaces a newer build. */
const latestBuild = new Map<string, symbol>();

/**
 * The deferred dead-code pass of each output file still running: a newer build of the file stops
 * it, so a watch's rebuild does not share the machine with wasm-opt working on a module it replaces.
 */
const deferredPasses = new Map<string, AbortController>();

/**
 * Builds a guest. Throws `MepError` with code `ERR_BUILD` (`data.diagnostics`: file, line,
 * column, message) for type errors, syntax errors and top-level throws, and `ERR_USAGE` for a
 * missing entry.
 *
 * @example
 * await buildGuest({ entry: 'ext/main.ts', outFile: 'out/ext.wasm' });
 * await buildGuest({ entry: 'ext/main.ts', outFile: 'out/ext.mjs', runtime: 'process' });
 */
export async function buildGuest(options: BuildGuestOptions): Promise<BuildGuestResult> {
  const runtime = options.runtime ?? 'wasm';
  const snapshot = options.snapshot ?? 'node';
  if (snapshot !== 'node' && snapshot !== 'wizer') throw new MepError(LocalErrorCode.Usage, `snapshot must be node or wizer, got '${String(snapshot)}'`);
  const cwd = options.cwd ?? process.cwd();
  const entry = resolve(cwd, options.entry);
  const outFile = resolve(cwd, options.outFile);
  const cacheDir = options.cacheDir ?? GUEST_CACHE_DIR;
  const timings: Record<string, number> = {};
  let t = performance.now();
  // A build whose publication was refused stops at the end of the stage it is in.
  let refused: unknown;
  options.publish?.catch((error: unknown) => (refused = error ?? new Error('publication refused')));
  const lap = (name: string): void => {
    const now = performance.now();
    timings[name] = Math.round((now - t) * 10) / 10;
    t = now;
    if (refused !== undefined) throw refused;
  };
  if (!existsSync(entry)) throw new MepError(LocalErrorCode.Usage, `guest entry ${options.entry} does not exist; pass the path of the extension's TypeScript entry`);
  mkdirSync(join(cacheDir, 'tmp'), { recursive: true });

  // The type check runs on a thread of its own (typecheck-pool.ts) while this one bundles and
  // snapshots: it cannot change the output, it only decides whether the output is written. A
  // type error fails the build as before (nothing written; a watch keeps the last good output).
  const checkStarted = performance.now();
  const verdict: Promise<void> =
    options.typecheck === false
      ? Promise.resolve()
      : checkInWorker(entry, { runtime, cwd, cacheDir: join(cacheDir, 'typecheck') }).then((problems) => {
          timings.typecheck = Math.round((performance.now() - checkStarted) * 10) / 10;
          if (problems.length > 0) throw buildFailure(options.entry, 'type check', problems);
        });
  verdict.catch(() => undefined); // awaited before anything is written, and when the pipeline fails
  // Every write waits for the verdict and for the publication; a refused publication ends the build at its first write.
  const writable = options.publish ? Promise.all([verdict, options.publish]).then(() => undefined) : verdict;
  writable.catch(() => undefined);
  try {
    const result = await produce(options, { runtime, snapshot, cwd, entry, outFile, cacheDir, lap, timings, writable });
    // What the output was made from, for `mep pack` (a stale build) and `mep build` without arguments.
    await writeBuildRecord(outFile, entry, runtime, result.inputs);
    return result;
  } catch (error) {
    // A build whose publication was refused ends now: no one reads its outcome.
    if (refused !== undefined && error === refused) throw error;
    await verdict; // type errors first: they explain a failed bundle better than esbuild does
    throw error;
  }
}

interface Pipeline {
  runtime: 'wasm' | 'process';
  snapshot: Snapshotter;
  cwd: string;
  entry: string;
  outFile: string;
  cacheDir: string;
  lap(name: string): void;
  timings: Record<string, number>;
  /** Settles with the type check (rejects with its errors) and the publication: every write of the output waits for it. */
  writable: Promise<void>;
}

/** Bundles, snapshots, links and writes (each write after the check's verdict). */
async function produce(options: BuildGuestOptions, p: Pipeline): Promise<BuildGuestResult> {
  const { runtime, snapshot, cwd, entry, outFile, cacheDir, lap, timings } = p;
  const token = Symbol(outFile);
  latestBuild.set(outFile, token);
  deferredPasses.get(outFile)?.abort();
  deferredPasses.delete(outFile);
  const place = async (file: string, data: string | Uint8Array, mode?: number): Promise<void> => {
    await p.writable;
    placeNow(file, data, mode);
  };
  const keepMap = options.sourceMap !== false;
  const mapOptions = runtime === 'process' ? { mapFile: basename(outFile), sourceRoot: sourceRootOf(outFile, entry, cwd) } : {};
  const bundleOptions = { entry, runtime, cwd, sourcesContent: options.sourcesContent === true, ...mapOptions, ...(options.intl ? { intl: options.intl } : {}) };
  // Cached by content (bundle-cache.ts): unchanged sources are a hit, and esbuild does not run.
  // A kept rebuild (a watch's second build on) skips it: esbuild's kept context parses only what
  // changed, and an edit is a miss anyway (hashing every input and writing the bundle for nothing).
  const bundleCache = bundleCachePath(cacheDir, JSON.stringify([PIPELINE_VERSION, BUNDLER_TEXT, bundleOptions]));
  const kept = options.incremental === true && keptBundles.has(bundleCache);
  const hit = kept ? undefined : cachedBundle(bundleCache);
  const bundleStarted = Date.now();
  const bundle = hit ?? (await bundleGuest(bundleOptions, options.incremental === true));
  if (options.incremental === true) keptBundles.add(bundleCache);
  if (!hit && !kept) storeBundle(bundleCache, bundle, [join(bundle.projectRoot, 'package.json')], bundleStarted);
  lap(hit ? 'bundle (cached)' : 'bundle');
  const intl = { warnings: bundle.warnings, ...(bundle.intl ? { intl: bundle.intl } : {}) };

  if (runtime === 'process') {
    const mapFile = `${outFile}.map`;
    // The map first, so a script never points at a map of another build; without one, an old map goes.
    if (keepMap) await place(mapFile, bundle.map);
    else await p.writable;
    if (!keepMap) rmSync(mapFile, { force: true });
    const code = keepMap ? `${bundle.code}//# sourceMappingURL=${encodeURIComponent(basename(mapFile))}\n` : bundle.code;
    await place(outFile, code, 0o755);
    return { outFile, runtime, size: Buffer.byteLength(code), sourceMapBytes: keepMap ? Buffer.byteLength(bundle.map) : 0, exports: [], inputs: bundle.inputs, cached: false, timings, warnings: [] };
  }
  if (options.compiler === 'extism-js') {
    const wasm = await compileWithExtismJs(entry, bundle.exports, join(cacheDir, 'tmp'));
    await place(outFile, wasm);
    lap('extism-js');
    return { outFile, runtime, size: wasm.length, sourceMapBytes: 0, exports: bundle.exports, inputs: bundle.inputs, cached: false, timings, ...intl };
  }
  // The map goes in last, onto the cached module: it names files, so a moved project with the
  // same code gets its own map from the same cache entry.
  const withMap = (wasm: Uint8Array): Uint8Array => (keepMap ? appendCustomSection(wasm, SOURCE_MAP_SECTION, new TextEncoder().encode(bundle.map)) : wasm);
  const mapBytes = keepMap ? Buffer.byteLength(bundle.map) : 0;

  const engine = await ensureEngine();
  lap('engine');
  // The node snapshot keeps the keys it always had; any other snapshotter adds its name.
  const keyParts = [PIPELINE_VERSION, engine.hash, String(options.optimize !== false), bundle.exports.join(','), bundle.code];
  if (snapshot !== 'node') keyParts.push(`snapshot=${snapshot}`);
  const key = createHash('sha256')
    .update(keyParts.join('\0'))
    .digest('hex')
    .slice(0, 24);
  const cached = join(cacheDir, `${key}.wasm`);
  if (existsSync(cached)) {
    const wasm = withMap(readFileSync(cached));
    await place(outFile, wasm);
    return { outFile, runtime, size: wasm.length, sourceMapBytes: mapBytes, exports: bundle.exports, inputs: bundle.inputs, cached: true, timings, ...intl };
  }
  const optimizing = options.optimize !== false;
  const base = optimizing ? await optimizedEngine(engine) : engine.wasmPath;
  lap('optimize engine');
  const engineBytes = readFileSync(base);
  const image = await compileBundle(base, engineLayout(engineBytes), bundle, options.entry, { snapshot, tmpRoot: join(cacheDir, 'tmp'), cwd });
  lap('snapshot');
  let wasm = linkGuest(engineBytes, image, bundle.exports);
  lap('link');
  const store = (module: Uint8Array): void => {
    replaceFile(cached, module);
  };
  if (optimizing && options.deferOptimize === true) {
    // The linked module works as it is; the pass only drops what no export reaches.
    const usable = withMap(wasm);
    await place(outFile, usable);
    const linked = wasm;
    const stop = new AbortController();
    deferredPasses.set(outFile, stop);
    const optimized = removeUnused(linked, join(cacheDir, 'tmp'), stop.signal)
      .then(async (done): Promise<DeferredPass> => {
        store(done);
        if (latestBuild.get(outFile) !== token) return 'superseded';
        placeNow(outFile, withMap(done));
        // The record names the output's hash: it describes the optimized module now.
        await writeBuildRecord(outFile, entry, runtime, bundle.inputs);
        return 'optimized';
      })
      // The unoptimized module stays; the next full build runs the pass again.
      .catch((): DeferredPass => (stop.signal.aborted ? 'superseded' : 'failed'))
      .finally(() => {
        if (deferredPasses.get(outFile) === stop) deferredPasses.delete(outFile);
      });
    return { outFile, runtime, size: usable.length, sourceMapBytes: mapBytes, exports: bundle.exports, inputs: bundle.inputs, cached: false, timings, optimized, ...intl };
  }
  if (optimizing) {
    wasm = await removeUnused(wasm, join(cacheDir, 'tmp'));
    lap('optimize');
  }
  store(wasm);
  const shipped = withMap(wasm);
  await place(outFile, shipped);
  return { outFile, runtime, size: shipped.length, sourceMapBytes: mapBytes, exports: bundle.exports, inputs: bundle.inputs, cached: false, timings, ...intl };
}

/** The project root as seen from the folder of `outFile` (a process build's map sits beside it). */
function sourceRootOf(outFile: string, entry: string, cwd: string): string {
  const root = relative(dirname(outFile), projectRootOf(entry, cwd)).split(sep).join('/');
  return root === '' ? '' : `${root}/`;
}

/**
 * Writes a build output only once it exists in full: the parent directory is created here (a
 * failed build leaves no empty folder behind) and the file appears by rename, never half-written.
 */
function placeNow(outFile: string, data: string | Uint8Array, mode = 0o644): void {
  mkdirSync(dirname(outFile), { recursive: true });
  replaceFile(outFile, data, mode);
}
