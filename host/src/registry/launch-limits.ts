/**
 * The user's limits ({@link ExtensionLimits}: manifest `limits`, then `mep` flags) turned into
 * what each runtime enforces: the wasm sandbox's memory cap, per-call deadline and message caps
 * each way; a process's message caps each way, the session's request deadline, and for a
 * Node.js script its V8 heap.
 */
import { DEFAULT_LIMITS, type ExtensionLimits } from '../protocol/limits.ts';
import type { WasmLimits } from '../transport/wasm/limits.ts';

/** Extra time a session waits past a wasm call's deadline, so the sandbox reports it first. */
const WASM_DEADLINE_MARGIN_MS = 2_000;

/** What {@link withLimits} needs of a launch spec. */
interface LimitedSpec {
  runtime: 'process' | 'wasm';
  path?: string;
  limits?: ExtensionLimits;
  wasm?: { limits?: Partial<WasmLimits> };
}

/**
 * `spec` with `limits` laid over its own (the manifest's): fields given in `limits` win, the rest
 * are kept. Returns `spec` itself when nothing is given.
 *
 * @example
 * const spec = withLimits(await verifyInstalled(installed), parseLimitFlags(values));
 */
export function withLimits<T extends LimitedSpec>(spec: T, limits: ExtensionLimits | undefined): T {
  if (limits === undefined || Object.keys(limits).length === 0) return spec;
  return { ...spec, limits: { ...spec.limits, ...limits } };
}

/**
 * The wasm sandbox's limits: the user's, then any engine-level override in `spec.wasm.limits`
 * (a `mep serve` client's `runtime.limits`).
 */
export function wasmLimitsOf(spec: LimitedSpec): Partial<WasmLimits> {
  const user = spec.limits ?? {};
  const out: Partial<WasmLimits> = {};
  if (user.maxMemoryBytes !== undefined) out.maxMemoryBytes = user.maxMemoryBytes;
  if (user.callTimeoutMs !== undefined) out.callTimeoutMs = user.callTimeoutMs;
  if (user.maxMessageBytes !== undefined) {
    out.maxRequestBytes = user.maxMessageBytes;
    out.maxResponseBytes = user.maxMessageBytes;
  }
  if (user.maxModuleBytes !== undefined) out.maxModuleBytes = user.maxModuleBytes;
  if (user.maxNotificationBytes !== undefined) out.maxNotificationBytes = user.maxNotificationBytes;
  return { ...out, ...spec.wasm?.limits };
}

/**
 * The session's deadline for one request. A wasm call gets a margin past the sandbox's own
 * deadline, so the more precise sandbox error (and the instance's disposal) comes first.
 */
export function requestTimeoutOf(spec: LimitedSpec): number {
  if (spec.runtime === 'wasm') {
    const callTimeoutMs = wasmLimitsOf(spec).callTimeoutMs ?? DEFAULT_LIMITS.callTimeoutMs;
    return callTimeoutMs + WASM_DEADLINE_MARGIN_MS;
  }
  return spec.limits?.callTimeoutMs ?? DEFAULT_LIMITS.callTimeoutMs;
}

/** A process's message cap (both directions): the user's, else the default 64 MiB. */
export function processMessageLimitOf(spec: LimitedSpec): number {
  return spec.limits?.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes;
}

/**
 * Node.js flags that cap a script extension's V8 heap at the user's memory limit (only when one
 * is set: without it the script keeps Node's own default). Native executables cannot be capped
 * portably from here and run unlimited.
 */
export function nodeMemoryFlags(spec: LimitedSpec): string[] {
  if (!isNodeScript(spec)) return [];
  const bytes = spec.limits?.maxMemoryBytes;
  if (bytes === undefined) return [];
  return [`--max-old-space-size=${Math.max(16, Math.floor(bytes / (1024 * 1024)))}`];
}

/** A process extension run with this Node.js (a `.js`, `.mjs` or `.cjs` file). */
export function isNodeScript(spec: LimitedSpec): boolean {
  return spec.runtime === 'process' && /\.(m|c)?js$/.test(spec.path ?? '');
}

/**
 * True when a memory limit is set but nothing can enforce it: a native executable (only wasm
 * guests and Node.js scripts are capped). Callers warn the user rather than pretend.
 */
export function memoryLimitUnenforced(spec: LimitedSpec): boolean {
  return spec.limits?.maxMemoryBytes !== undefined && spec.runtime === 'process' && !isNodeScript(spec);
}
