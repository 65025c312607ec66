/**
 * Turns a wasm bundle into the blob a guest snapshot evaluates: QuickJS bytecode from the
 * engine's own `compile-src` (run in this process), checked by evaluating it once through the
 * same entry point the snapshot uses. Compile errors and top-level throws come back as
 * diagnostics located in the user's files through the bundle's source map.
 */
import { readFileSync } from 'node:fs';
import { createEngineRunner } from '../engine/index.ts';
import { buildFailure, type Diagnostic } from './diagnostics.ts';
import { createSourceMapLookup } from './internal/sourcemap.ts';
import type { Bundle } from './bundle.ts';

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

/** Packs bytecode and export names: [u32 LE length][bytecode][name\0]… (see glue/guest.c). */
export function packBlob(bytecode: Uint8Array, exportNames: readonly string[]): Uint8Array {
  const names = new TextEncoder().encode(exportNames.map((n) => `${n}\0`).join(''));
  const blob = new Uint8Array(4 + bytecode.length + names.length);
  new DataView(blob.buffer).setUint32(0, bytecode.length, true);
  blob.set(bytecode, 4);
  blob.set(names, 4 + bytecode.length);
  return blob;
}

/** Maps an engine message ("Error: x\n    at f (guest.js:12)") to a diagnostic in user code. */
function locate(message: string, map: string, fallbackFile: string, prefix: string): Diagnostic {
  const lookup = createSourceMapLookup(map);
  const first = message.split('\n')[0] ?? message;
  for (const m of message.matchAll(/guest\.js:(\d+)/g)) {
    const pos = lookup(Number(m[1]));
    if (pos) return { file: pos.source, line: pos.line, column: pos.column, message: `${prefix}${first}` };
  }
  return { file: fallbackFile, line: 1, column: 1, message: `${prefix}${first} (no source position available)` };
}

/**
 * Compiles and pre-evaluates a bundle; returns the blob for the snapshot or throws `ERR_BUILD`
 * with diagnostics.
 */
export async function compileBundle(engineWasm: string, bundle: Bundle, entry: string): Promise<Uint8Array> {
  const runner = await createEngineRunner(await engineModule(engineWasm));
  const compiled = runner.compile(bundle.code);
  if (!compiled.ok) throw buildFailure(entry, 'compile to QuickJS bytecode', [locate(compiled.message, bundle.map, entry, '')]);
  const blob = packBlob(compiled.bytecode, bundle.exports);
  const failure = runner.guestInit(blob.slice());
  if (failure !== null) {
    throw buildFailure(entry, 'module initialization', [locate(failure, bundle.map, entry, 'the module threw while initializing (top level): ')]);
  }
  return blob;
}
