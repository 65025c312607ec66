/**
 * V8's compiled code of a guest module kept between `mep` processes (issue 32), in the user's
 * `$MEP_HOME/cache/wasm-code/`. Node 20 (V8 11.3) has no public API for it, so this uses V8's test
 * natives (`%SerializeWasmModule`, `%DeserializeWasmModule`), made once with
 * `--allow-natives-syntax` on only while the two functions are created. Where they are missing,
 * everything below stands aside and the module compiles as it always did.
 *
 * A process that finds no cache and no marker compiles the module as today (lazily, no eager
 * compile) and leaves only a marker that these bytes were seen (a checked file of a few bytes in the
 * same folder, {@link MAX_MARKERS} at most): a one-off run (a CI job, a container with a fresh
 * `$MEP_HOME`) pays nothing. A process that finds no cache but a marker compiles the module eagerly
 * with TurboFan (`--no-liftoff --no-wasm-lazy-compilation`, set only around a synchronous compile:
 * about 0.8 s of CPU once for the 7 MB guest, docs/performance-log.md), serializes it and writes
 * it; that process runs the optimised code too. `eager` (MEP_WASM_CODE_CACHE=eager: an install
 * step, a CI cache) skips the marker: the first miss compiles and writes. A process that finds one deserializes it: every function starts on TurboFan,
 * with no Liftoff phase and no recompiling beside the guest's thread. Serializing a module with no
 * TurboFan code aborts the process (a V8 CHECK), so only an eager compile of a module with
 * functions is serialized. V8 reads a cache only under the flag hash it was written under: both
 * sides put the wasm tiering flags back to V8's defaults around it and the process's own choice
 * (wasm-tier.ts) after it; a process given a tiering flag on node's command line is left alone.
 *
 * What is read is machine code run outside the wasm sandbox, so it is used only when all of these
 * hold (files/checked-cache-file.ts does the file's part), and otherwise the module compiles as
 * today: its name is the sha256 of exactly the bytes V8 compiles (after the memory cap's rewrite,
 * hashed here from them) and of node (its version, CPU architecture and options); it is a regular
 * file of this user's that no one else can write, at most {@link MAX_COMPILED_CODE_BYTES}, in a
 * folder of this user's closed to others; its own sha256 over its name and body matches (V8 checks
 * a header, not the body: a flipped byte would run); and V8 accepts it.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { ownFolder, readCheckedCache, writeCheckedCache, type CheckedCacheFormat } from '../../../files/checked-cache-file.ts';
import { findSections, readU32 } from '../memory-cap.ts';
import { TIERING_FLAG } from './wasm-tier.ts';

/** The largest cache file read (the 7.3 MB Elm frontend's is about 2 MB). */
export const MAX_COMPILED_CODE_BYTES = 128 * 1024 * 1024;
/** Modules kept beside the one written: at most 4 files, 4 × {@link MAX_COMPILED_CODE_BYTES}. */
const KEEP_OTHERS = 3;
const FORMAT: CheckedCacheFormat = { magic: Buffer.from('mep-wcc1'), maxBytes: MAX_COMPILED_CODE_BYTES, extension: '.wcode', keepOthers: KEEP_OTHERS };
/** Markers of modules seen once (no code yet) kept at most: a few bytes each. */
export const MAX_MARKERS = 16;
/** A marker's body: these bytes, checked like a cache's (a FIFO, a link, another's file is no marker). */
const SEEN = Buffer.from('seen');
/**
 * Eager compiles started for one module that did not finish (the process ended during the compile
 * or the serialize: a Ctrl+C, or V8 aborting on these bytes), after which a miss compiles lazily
 * for good: a module that kills the process in the eager compile would otherwise kill every other
 * command run on it. The marker says how many were started (`tried 1`, …) before each starts.
 */
export const MAX_EAGER_TRIES = 2;
const TRIED = (n: number): Buffer => Buffer.from(`tried ${n}`);
const MARKER: CheckedCacheFormat = { magic: Buffer.from('mep-wcs1'), maxBytes: 64, extension: '.wseen', keepOthers: MAX_MARKERS - 1 };

/** V8's wasm tiering options at their defaults, from any state `mep` or this module sets. */
const DEFAULT_TIERS = '--liftoff --no-liftoff-only --wasm-lazy-compilation --wasm-dynamic-tiering --wasm-tier-up --wasm-native-module-cache-enabled';
/**
 * Every function compiled by TurboFan when the module is compiled, and not V8's module of the same
 * bytes compiled before in this process (its native module cache), which may have none: serializing
 * that would abort.
 */
const EAGER_TURBOFAN = '--no-liftoff-only --no-liftoff --no-wasm-lazy-compilation --no-wasm-native-module-cache-enabled';
const FUNCTION_SECTION = 3;

interface Natives {
  serialize(module: WebAssembly.Module): ArrayBuffer;
  deserialize(blob: ArrayBuffer, wire: Uint8Array): WebAssembly.Module | undefined;
}

let natives: Natives | undefined | null = null;

/** V8's two natives, or undefined where this node has no such thing. */
function v8Natives(): Natives | undefined {
  if (natives !== null) return natives;
  natives = undefined;
  const given = process.execArgv.includes('--allow-natives-syntax');
  try {
    setFlagsFromString('--allow-natives-syntax');
    natives = {
      serialize: new Function('m', 'return %SerializeWasmModule(m)') as Natives['serialize'],
      deserialize: new Function('b', 'w', 'return %DeserializeWasmModule(b, w)') as Natives['deserialize'],
    };
  } catch {
    natives = undefined;
  } finally {
    if (!given) setFlagsFromString('--no-allow-natives-syntax');
  }
  return natives;
}

/** Where this cache stands, for `--verbose`: `hit`, `miss, marked (…)`, `miss (marked before), compiled and written (…)`, or why it was not used. */
export type CompiledCodeNote = string;

/** Where the cache is and how it is used: what the host tells the worker. */
export interface CompiledCodePlace {
  /** The cache's folder. */
  dir: string;
  /** The tiering flag the process chose (wasm-tier.ts `wasmTierChoice`), put back after each use. */
  tier?: string;
  /** Compile and write on the first miss, with no marker first (MEP_WASM_CODE_CACHE=eager). */
  eager?: boolean;
}

/** What {@link compileWithCodeCache} needs. */
export interface CompiledCodeCacheOptions extends CompiledCodePlace {
  /** Told what became of the cache. */
  note?: (note: CompiledCodeNote) => void;
}

/** The cache file of the module whose exact bytes hash to `sha256`, in this node. */
export function compiledCodePath(dir: string, sha256: string): string {
  const node = createHash('sha256').update(JSON.stringify([process.version, process.arch, process.execArgv, process.env.NODE_OPTIONS ?? ''])).digest('hex');
  return join(dir, `${sha256}-${node.slice(0, 16)}${FORMAT.extension}`);
}

/** The marker that the module of the cache file `path` was seen once. */
const markerPath = (path: string): string => `${path.slice(0, -FORMAT.extension.length)}${MARKER.extension}`;

/**
 * The trusted marker at `marker` (a regular file of this user's, closed to others, in such a
 * folder, checksum right): the eager compiles started before (0: seen only), or undefined.
 */
const markedTries = (marker: string): number | undefined => {
  const body = readCheckedCache(marker, MARKER);
  if (typeof body !== 'object') return undefined;
  if (body.equals(SEEN)) return 0;
  for (let n = 1; n <= MAX_EAGER_TRIES; n++) if (body.equals(TRIED(n))) return n;
  return undefined;
};

/** Runs `fn` with V8's wasm tiering options at their defaults, then `tier` again. */
function inDefaultTiers<T>(tier: string | undefined, fn: () => T): T {
  if (tier === undefined) return fn();
  setFlagsFromString(DEFAULT_TIERS);
  try {
    return fn();
  } finally {
    setFlagsFromString(tier);
  }
}

/** Whether the module declares functions of its own (one with none has no code: serializing it aborts). */
function hasFunctions(wire: Uint8Array): boolean {
  try {
    const section = findSections(wire, [FUNCTION_SECTION]).get(FUNCTION_SECTION);
    return section !== undefined && readU32(wire, section.start).value > 0;
  } catch {
    // Bytes it cannot read: the usual compile gives their error.
    return false;
  }
}

/**
 * The `compileBytes` of `compileExtensionModule` (module.ts) that goes through the cache at
 * `place`, telling `note` what became of it; undefined when there is no cache (turned off).
 */
export function codeCacheCompiler(place: CompiledCodePlace | undefined, note: (note: CompiledCodeNote) => void): ((wire: Uint8Array) => Promise<WebAssembly.Module>) | undefined {
  return place && ((wire) => compileWithCodeCache(wire, { ...place, note }));
}

/**
 * Compiles `wire` (exactly the bytes to run) through the cache: its code deserialized when a valid
 * cache of exactly these bytes is there; else, on a first miss, compiled as today with a marker
 * left; else compiled eagerly by TurboFan and written for the next process. Any failure of the
 * cache falls back to `WebAssembly.compile`, whose error an invalid module gets.
 */
export async function compileWithCodeCache(wire: Uint8Array, options: CompiledCodeCacheOptions): Promise<WebAssembly.Module> {
  const note = options.note ?? (() => undefined);
  /** Today's compile, with `text` as the cache's note. */
  const asToday = (text: string): Promise<WebAssembly.Module> => (note(text), WebAssembly.compile(wire as Uint8Array<ArrayBuffer>));
  const v8 = v8Natives();
  if (v8 === undefined) return asToday('not used: this node has no V8 natives to read it with');
  if (process.execArgv.some((arg) => TIERING_FLAG.test(arg))) return asToday("not used: node was given a wasm tiering flag");
  const { tier } = options;
  const path = compiledCodePath(options.dir, createHash('sha256').update(wire).digest('hex'));
  const blob = readCheckedCache(path, FORMAT);
  let why = blob === 'miss' ? 'miss' : 'refused (not a file of this user\'s closed to others in such a folder, too large, or its checksum differs)';
  if (typeof blob === 'object') {
    // Its own buffer: V8 reads an ArrayBuffer whole.
    const copy = blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength) as ArrayBuffer;
    let module: WebAssembly.Module | undefined;
    try {
      module = inDefaultTiers(tier, () => v8.deserialize(copy, wire));
    } catch {
      module = undefined;
    }
    if (module instanceof WebAssembly.Module) return (note('hit'), module);
    why = 'rejected by V8';
  }
  // A folder others can write is not written to either (nor compiled for): today's compile.
  if (blob === 'refused' && !ownFolder(options.dir)) return asToday(`${why}, not written`);
  if (!hasFunctions(wire)) return asToday(`${why}, not written`);
  const marker = markerPath(path);
  const tries = markedTries(marker);
  if (tries !== undefined && tries >= MAX_EAGER_TRIES) {
    return asToday(`${why}; ${tries} eager compiles of these bytes started before and did not finish (the process ended during them): compiled lazily, not tried again (remove ${marker} to try again)`);
  }
  if (blob === 'miss' && options.eager !== true && tries === undefined) {
    // A first miss: today's lazy compile, and only a note that these bytes were seen.
    try {
      writeCheckedCache(marker, SEEN, MARKER);
    } catch (error) {
      return asToday(`miss, not marked: ${(error as Error).message}`);
    }
    return asToday('miss, marked (compiled lazily; the next miss compiles and writes the code)');
  }
  if (blob === 'miss') why = options.eager === true ? 'miss (eager)' : 'miss (marked before)';
  // Counted before it starts: a process that ends during it leaves the count behind.
  try {
    writeCheckedCache(marker, TRIED((tries ?? 0) + 1), MARKER);
  } catch (error) {
    return asToday(`${why}, not compiled eagerly: its marker could not be written: ${(error as Error).message}`);
  }
  let module: WebAssembly.Module;
  try {
    setFlagsFromString(EAGER_TURBOFAN);
    try {
      module = new WebAssembly.Module(wire as Uint8Array<ArrayBuffer>);
    } finally {
      setFlagsFromString(tier === undefined ? DEFAULT_TIERS : `${DEFAULT_TIERS} ${tier}`);
    }
  } catch {
    // Not compiled this way (an invalid module gets its error from the usual compile).
    return asToday(`${why}, not written`);
  }
  try {
    const code = inDefaultTiers(tier, () => v8.serialize(module));
    writeCheckedCache(path, new Uint8Array(code), FORMAT);
    // The marker has done its work (a failure to remove it leaves a few bytes, bounded).
    try {
      rmSync(marker, { force: true });
    } catch {}
    note(`${why}, compiled and written (${code.byteLength} bytes)`);
  } catch (error) {
    note(`${why}, not written: ${(error as Error).message}`);
  }
  return module;
}
