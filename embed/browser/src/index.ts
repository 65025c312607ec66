/**
 * mep-runtime for browsers: the platform-neutral host core (sessions, the wasm transport, the
 * protocol model) plus Web Worker isolation. Bundled by embed/browser/build.ts to
 * `mep-embed.js` and `mep-wasm-worker.js`; no `node:` module is bundled.
 */
export { openWasmSession, BROWSER_HOST_INFO } from './open-session.ts';
export type { OpenedWasmSession, OpenWasmSessionOptions } from './open-session.ts';
export { createWebWorkerSpawner } from './web-worker-spawner.ts';
export { shownText } from './shown-text.ts';
export type { WebWorkerSpawnerOptions } from './web-worker-spawner.ts';
export { createSession } from '../../../host/src/session/session.ts';
export type { Session, SessionOptions, CallOptions } from '../../../host/src/session/session.ts';
export { createWasmTransport, compileExtensionModule, DEFAULT_WASM_LIMITS } from '../../../host/src/transport/wasm/index.ts';
export type { WasmTransportOptions, WasmLimits, WasmGrants, WasmIsolation } from '../../../host/src/transport/wasm/index.ts';
export { ErrorCode, LocalErrorCode, MepError, isMepError } from '../../../host/src/protocol/errors.ts';
export type { GenerateParams, GenerateResult, InitializeResult, Diagnostic, Artifact } from '../../../host/src/protocol/index.ts';
