/**
 * Prepares the engine for its snapshot with binaryen.js: adds a passive data segment holding the
 * blob (bytecode + export names), a `wizer.initialize` function that copies it into memory and
 * calls `mep_guest_init`, and one exported `() -> i32` function per JS export that calls
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

    // Rebuild the memory's segment list with the blob appended as a passive segment.
    const mem = mod.getMemoryInfo();
    const segments: binaryen.MemorySegment[] & { name?: string }[] = [];
    for (let i = 0; i < (mod as unknown as { getNumDataSegments(): number }).getNumDataSegments(); i++) {
      const info = (mod as unknown as { getDataSegmentInfo(r: number): unknown }).getDataSegmentInfo(mod.getDataSegmentByIndex(i)) as unknown as { name: string; offset: number; data: ArrayBuffer; passive: boolean };
      segments.push({ name: info.name, data: new Uint8Array(info.data), passive: info.passive, offset: mod.i32.const(info.offset ?? 0) } as never);
    }
    segments.push({ name: 'mep_blob', data: blob, passive: true, offset: 0 } as never);
    mod.removeExport('memory');
    mod.setMemory(mem.initial, mem.max ?? -1, 'memory', segments, false, false, memory);

    const len = mod.i32.const(blob.length);
    mod.addFunction(
      WIZER_INIT,
      binaryen.none,
      binaryen.none,
      [binaryen.i32],
      mod.block(null, [
        mod.local.set(0, mod.call(realloc, [mod.i32.const(0), mod.i32.const(0), mod.i32.const(1), len], binaryen.i32)),
        mod.memory.init('mep_blob', mod.local.get(0, binaryen.i32), mod.i32.const(0), mod.i32.const(blob.length), memory),
        mod.data.drop('mep_blob'),
        mod.if(mod.call(guestInit, [mod.local.get(0, binaryen.i32), mod.i32.const(blob.length)], binaryen.i32), mod.unreachable()),
      ]),
    );
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
