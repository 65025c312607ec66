/**
 * Turns a wasm bundle into the initialized memory of a guest: QuickJS bytecode from the engine's
 * own `compile-src` (run in this process), packed into a blob and evaluated once in a fresh
 * engine instance, whose memory is the snapshot (snapshot.ts in this process by default, or
 * wizer-snapshot.ts under wizer). Compile errors and top-level throws come back as diagnostics
 * located in the user's files through the bundle's source map.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { OWN_BUILD_MAP, parseSourceMap } from '../../host/src/transport/source-map/source-map.ts';
import { mapStack, type MappedStack } from '../../host/src/transport/source-map/stack.ts';
import { createEngineRunner, type EngineRunner } from '../engine/index.ts';
import { buildFailure, type Diagnostic } from './diagnostics.ts';
import type { Bundle } from './bundle.ts';
import type { EngineLayout, MemoryImage } from './link.ts';
import { snapshotGuest, type SnapshotResult } from './snapshot.ts';
import { snapshotWithWizer } from './wizer-snapshot.ts';

/** Which tool takes the snapshot: this Node process (default) or wizer. */
export type Snapshotter = 'node' | 'wizer';

/** Options of {@link compileBundle}. */
export interface CompileBundleOptions {
  /** `node` (default): snapshot.ts; `wizer`: wizer-snapshot.ts. */
  snapshot?: Snapshotter;
  /** Folder for wizer's temporary files (required with `snapshot: 'wizer'`). */
  tmpRoot?: string;
  /** Folder diagnostics are relative to (default process.cwd()). */
  cwd?: string;
}

const modules = new Map<string, Promise<WebAssembly.Module>>();

/** Compiles the engine once per process. */
function engineModule(wasmPath: string): Promise<WebAssembly.Module> {
  let m = modules.get(wasmPath);
  if (!m) {
    m = WebAssembly.compile(readFileSync(wasmPath));
    modules.set(wasmPath, m);
  }
  return m;
}

const runners = new Map<string, Promise<EngineRunner>>();

/**
 * The engine instance that compiles bundles to bytecode, one per engine and process: `compile-src`
 * keeps no state between calls (its memory stays the same size over many compiles, a failed one
 * included), so a watch's rebuild does not instantiate and initialize an engine just to compile.
 */
function compilerOf(wasmPath: string, module: WebAssembly.Module): Promise<EngineRunner> {
  let r = runners.get(wasmPath);
  if (!r) {
    r = createEngineRunner(module);
    runners.set(wasmPath, r);
    r.catch(() => runners.delete(wasmPath)); // one that could not start is not kept
  }
  return r;
}

/** Packs bytecode and export names: [u32 LE length][bytecode][name\0]… (see glue/guest.c). */
export function packBlob(bytecode: Uint8Array, exportNames: readonly string[]): Uint8Array {
  const names = new TextEncoder().encode(exportNames.map((n) => `${n}\0`).join(''));
  const blob = new Uint8Array(4 + bytecode.length + names.length);
  new DataView(blob.buffer).setUint32(0, bytecode.length, true);
  blob.set(bytecode, 4);
  blob.set(names, 4 + bytecode.length);
  return blob;
}

/**
 * Maps an engine message ("Error: x\n    at f (guest.js:12:5)") to a diagnostic at the first frame
 * in the author's code (or the first mapped one: a dependency that throws at load), with the
 * whole mapped stack.
 */
function locate(message: string, bundle: Bundle, fallbackFile: string, prefix: string, cwd: string): { diagnostic: Diagnostic; stack?: MappedStack } {
  const first = message.split('\n')[0] ?? message;
  const stack = mapStack(message, { map: parseSourceMap(bundle.map, OWN_BUILD_MAP) });
  const frame = stack.origin ?? stack.frames.find((f) => f.mapped);
  if (!frame) return { diagnostic: { file: fallbackFile, line: 1, column: 1, message: `${prefix}${first} (no source position available)` } };
  // Build diagnostics name files from the working directory, as tsc and esbuild do; a mapped
  // dependency keeps its node_modules/… name.
  const file = frame.ignored ? frame.file : relative(cwd, resolve(bundle.projectRoot, frame.file)) || frame.file;
  return { diagnostic: { file, line: frame.line, column: frame.column ?? 1, message: `${prefix}${first}` }, stack };
}

/**
 * Compiles a bundle and evaluates it in a fresh engine instance; returns that instance's memory
 * for the guest module, or throws `ERR_BUILD` with diagnostics.
 *
 * @param layout the stack layout of `engineWasm` (link.ts `engineLayout`)
 * @param options which snapshotter runs the initialization (default: this process)
 */
export async function compileBundle(engineWasm: string, layout: EngineLayout, bundle: Bundle, entry: string, options: CompileBundleOptions = {}): Promise<MemoryImage> {
  const module = await engineModule(engineWasm);
  const compiler = await compilerOf(engineWasm, module);
  let compiled: ReturnType<EngineRunner['compile']>;
  try {
    compiled = compiler.compile(bundle.code);
  } catch (e) {
    runners.delete(engineWasm); // a trap may leave the instance broken: the next build starts a fresh one
    throw e;
  }
  const cwd = options.cwd ?? process.cwd();
  if (!compiled.ok) {
    const { diagnostic, stack } = locate(compiled.message, bundle, entry, '', cwd);
    throw buildFailure(entry, 'compile to QuickJS bytecode', [diagnostic], stack);
  }
  const blob = packBlob(compiled.bytecode, bundle.exports);
  let result: SnapshotResult;
  if (options.snapshot === 'wizer') {
    if (!options.tmpRoot) throw new TypeError('compileBundle: tmpRoot is required with snapshot: wizer');
    result = await snapshotWithWizer(readFileSync(engineWasm), layout, blob, options.tmpRoot);
  } else {
    result = await snapshotGuest(module, layout, blob);
  }
  if (!result.ok) {
    const { diagnostic, stack } = locate(result.message, bundle, entry, 'the module threw while initializing (top level): ', cwd);
    throw buildFailure(entry, 'module initialization', [diagnostic], stack);
  }
  return result.image;
}
