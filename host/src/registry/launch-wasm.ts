/**
 * Node's way to open a wasm extension: worker isolation by default (a guest that never yields
 * can be killed), inline on request for trusted guests.
 */
import type { LogSink, Transport } from '../transport/types.ts';
import type { WasmGrants, WasmLimits } from '../transport/wasm/limits.ts';
import { createNodeWasmTransport, warmNodeWasmTransport } from '../transport/wasm/node/worker.ts';
import type { WarmOptions } from '../transport/wasm/worker-pool.ts';

/** Sandbox options of one wasm extension. */
export interface WasmLaunchOptions {
  /** Overrides of the default limits (256 MiB memory, 64 MiB messages, 30 s per call). */
  limits?: Partial<WasmLimits>;
  /** What the guest may use beyond the sandbox; nothing by default. */
  grants?: WasmGrants;
  /** `worker` (default) for untrusted guests, `inline` for trusted ones (faster, not killable). */
  isolation?: 'worker' | 'inline';
}

/** What stops an opening (see `createWasmTransport`). */
export interface WasmOpenOptions {
  signal?: AbortSignal;
}

/** Opens a wasm transport for `module` (bytes, or a module from `compileExtensionModule`). */
export function openWasmTransport(name: string, module: Uint8Array | WebAssembly.Module, options: WasmLaunchOptions, log?: LogSink, open: WasmOpenOptions = {}): Promise<Transport> {
  return createNodeWasmTransport({ name, module, limits: options.limits, grants: options.grants, isolation: options.isolation, log, ...open });
}

/** Starts what a later {@link openWasmTransport} with the same arguments needs (its worker); never rejects. */
export function warmWasmLaunch(name: string, module: Uint8Array | WebAssembly.Module, options: WasmLaunchOptions, warm?: WarmOptions): Promise<void> {
  return warmNodeWasmTransport({ name, module, limits: options.limits, grants: options.grants, isolation: options.isolation }, warm);
}
