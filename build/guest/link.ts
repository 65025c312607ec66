/**
 * Prepares the engine for its snapshot with binaryen.js: adds a `wizer.initialize` function that
 * writes the blob (bytecode + export names) into a fresh heap block and calls `mep_guest_init`,
 * and one exported `() -> i32` function per JS export that calls
 * `mep_call_export(index)`. The engine's own ABI exports are removed so the guest exports only
 * `memory` and the user's functions.
 */
import binaryen from 'binaryen';
import { toolFailure } from './diagnostics.ts';

/** The init function wizer runs (its default name); wizer removes the export afterwards. */
export const WIZER_INIT = 'wizer.initialize';
/** Export names a guest may not use: they belong to the module itself. */
export const RESERVED_EXPORTS = new Set(['memory', WIZER_INIT, '_start', '_initialize']);
const ENGINE_EXPORTS = ['mep_guest_init', 'mep_call_export', 'initialize-runtime', 'cabi_realloc', 'compile-src', 'invoke'];

/**
 * The body of the init function. Wizer 10 rejects `memory.init`/`data.drop`, so the blob is
 * written with 8-byte constant stores; the function runs once inside wizer and is dropped by
 * wasm-opt afterwards (wizer removes its export), so it never reaches the final module.
 */
function initBody(mod: binaryen.Module, blob: Uint8Array, realloc: string, guestInit: string, memory: string): binaryen.ExpressionRef {
  const ptr = (): binaryen.ExpressionRef => mod.local.get(0, binaryen.i32);
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const body: binaryen.ExpressionRef[] = [
    mod.local.set(0, mod.call(realloc, [mod.i32.const(0), mod.i32.const(0), mod.i32.const(1), mod.i32.const(Math.max(blob.length, 1))], binaryen.i32)),
  ];
  // Zero stores are skipped, so start from zeroed bytes.
  body.push(mod.memory.fill(ptr(), mod.i32.const(0), mod.i32.const(blob.length), memory));
  let i = 0;
  for (; i + 8 <= blob.length; i += 8) {
    const v = view.getBigInt64(i, true);
    if (v !== 0n) body.push(mod.i64.store(i, 1, ptr(), (mod.i64.const as unknown as (v: bigint) => binaryen.ExpressionRef)(v), memory));
  }
  for (; i < blob.length; i++) body.push(mod.i32.store8(i, 1, ptr(), mod.i32.const(blob[i]!), memory));
  body.push(mod.if(mod.call(guestInit, [ptr(), mod.i32.const(blob.length)], binaryen.i32), mod.unreachable()));
  return mod.block(null, body);
}

function internalName(mod: binaryen.Module, exportName: string): string {
  const ref = mod.getExport(exportName);
  if (!ref) throw toolFailure('guest link', `the engine does not export ${exportName}; rebuild it with npm run build:engine`);
  return binaryen.getExportInfo(ref).value;
}

/**
 * Returns the engine with the blob and export wrappers added, ready for wizer.
 *
 * @param exportNames the JS exports, in the order the blob lists them
 */
export function linkGuest(engine: Uint8Array, blob: Uint8Array, exportNames: readonly string[]): Uint8Array {
  const mod = binaryen.readBinary(engine);
  try {
    mod.setFeatures(mod.getFeatures() | binaryen.Features.BulkMemory | binaryen.Features.MutableGlobals | binaryen.Features.SignExt);
    const guestInit = internalName(mod, 'mep_guest_init');
    const callExport = internalName(mod, 'mep_call_export');
    const realloc = internalName(mod, 'cabi_realloc');
    const memory = internalName(mod, 'memory');
    for (const name of ENGINE_EXPORTS) mod.removeExport(name);

    mod.addFunction(WIZER_INIT, binaryen.none, binaryen.none, [binaryen.i32], initBody(mod, blob, realloc, guestInit, memory));
    mod.addFunctionExport(WIZER_INIT, WIZER_INIT);

    exportNames.forEach((name, index) => {
      if (RESERVED_EXPORTS.has(name)) throw toolFailure('guest link', `the entry exports '${name}', a name reserved by the module; rename that export`);
      const fn = `mep_export_${index}`;
      mod.addFunction(fn, binaryen.none, binaryen.i32, [], mod.call(callExport, [mod.i32.const(index)], binaryen.i32));
      mod.addFunctionExport(fn, name);
    });
    return mod.emitBinary();
  } finally {
    mod.dispose();
  }
}
