/**
 * The guest build pipeline: TypeScript extension → sandboxed wasm guest (or one Node file).
 * The `mep build` command is a thin wrapper around {@link buildGuest}.
 */
export { buildGuest, GUEST_CACHE_DIR, type BuildGuestOptions, type BuildGuestResult } from './build-guest.ts';
export { bundleGuest, disposeBundleContexts, stopBundler, EXPORTS_GLOBAL, PDK_EXPORTS, PDK_PROCESS_BINDING, PDK_WASM_BINDING, type Bundle, type BundleOptions } from './bundle.ts';
export { compileBundle, packBlob, type CompileBundleOptions, type Snapshotter } from './bytecode.ts';
export { buildFailure, formatDiagnostic, type Diagnostic } from './diagnostics.ts';
export { engineLayout, linkGuest, RESERVED_EXPORTS, type EngineLayout, type MemoryImage } from './link.ts';
export { optimizedEngine } from './optimized-engine.ts';
export { snapshotGuest, type SnapshotResult } from './snapshot.ts';
export { typecheckGuest, type TypecheckOptions } from './typecheck.ts';
export { GUEST_LIB, GUEST_TYPES, GUEST_TYPES_FILES, writeGuestTypes } from './types/guest-globals.ts';
export { MISSING_GLOBALS } from './types/missing-globals.ts';
export { findExtismJs, removeUnused, wasmOptPath } from './tools.ts';
export { runWizer, snapshotWithWizer, WIZER_INIT, wizerInput, wizerPath, type WizerResult } from './wizer-snapshot.ts';
