/**
 * The user's limits ({@link ExtensionLimits}: manifest `limits`, then `mep` flags) turned into
 * what each runtime enforces: the wasm sandbox's memory cap, per-call deadline and message caps
 * each way; a process's message caps each way, the session's request deadline, and its memory
 * cap (a Node.js script's V8 heap, a native executable's address space through `prlimit`).
 */
import { existsSync } from 'node:fs';
import { DEFAULT_LIMITS, type ExtensionLimits } from '../protocol/limits.ts';
import type { WasmLimits } from '../transport/wasm/limits.ts';

/** Extra time a session waits past a wasm call's deadline, so the sandbox reports it first. */
const WASM_DEADLINE_MARGIN_MS = 2_000;

/** What {@link withLimits} needs of a launch spec. */
interface LimitedSpec {
  runtime: 'process' | 'wasm' | 'http';
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

/** What one generate call of the session may write: the user's bounds (defaults applied where counted). */
export function outputLimitsOf(spec: LimitedSpec): { maxOutputBytes?: number; maxOutputFiles?: number } {
  const { maxOutputBytes, maxOutputFiles } = spec.limits ?? {};
  return { ...(maxOutputBytes === undefined ? {} : { maxOutputBytes }), ...(maxOutputFiles === undefined ? {} : { maxOutputFiles }) };
}

/** A process's message cap (both directions): the user's, else the default 64 MiB. */
export function processMessageLimitOf(spec: LimitedSpec): number {
  return spec.limits?.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes;
}

/**
 * Node.js flags that cap a script extension's V8 heap at its memory limit: the user's, else the
 * default 256 MiB (so a leaking script fails with the memory-limit error rather than a timeout).
 * The heap is what V8 can cap; Buffers outside it are not counted.
 */
export function nodeMemoryFlags(spec: LimitedSpec): string[] {
  if (!isNodeScript(spec)) return [];
  const bytes = spec.limits?.maxMemoryBytes ?? DEFAULT_LIMITS.maxMemoryBytes;
  return [`--max-old-space-size=${Math.max(16, Math.floor(bytes / (1024 * 1024)))}`];
}

/** A process extension run with this Node.js (a `.js`, `.mjs` or `.cjs` file). */
export function isNodeScript(spec: LimitedSpec): boolean {
  return spec.runtime === 'process' && /\.(m|c)?js$/.test(spec.path ?? '');
}

/** Where util-linux's prlimit is (Debian: util-linux is essential, so always there). */
const PRLIMIT_PATHS = ['/usr/bin/prlimit', '/bin/prlimit'];

/**
 * The tool that caps a native executable's address space (`prlimit --as`), or null where
 * there is none (not Linux, or no util-linux).
 */
export function addressSpaceTool(): string | null {
  if (process.platform !== 'linux') return null;
  return PRLIMIT_PATHS.find((path) => existsSync(path)) ?? null;
}

/** How a process extension is started: the command, its arguments, and the memory cap it runs under. */
export interface ProcessCommand {
  command: string;
  args: string[];
  /**
   * The address-space cap of an executable, in bytes, when one applies: a crash there may have
   * been the cap, and its report says so (a script's heap limit announces itself on stderr).
   */
  memoryLimitBytes?: number;
  /** A Node.js script's V8 heap limit, in bytes: named, with the raise sized from it, when the script reaches it. */
  heapLimitBytes?: number;
}

/**
 * The command line of the process extension `spec`: a Node.js script runs with this Node.js and
 * its heap capped ({@link nodeMemoryFlags}); a native executable runs as is, or, when the user
 * set a memory limit and `prlimit` is at hand (`tool`, default {@link addressSpaceTool}), under
 * `prlimit --as=<bytes>`, which execs it with that address-space limit (same pid and group). The
 * default is not applied to executables: the address space they reserve is not what they use.
 */
export function processCommandOf(spec: LimitedSpec & { path: string; args?: string[] }, tool: string | null = addressSpaceTool()): ProcessCommand {
  const args = [...(spec.args ?? [])];
  if (isNodeScript(spec)) {
    const flags = nodeMemoryFlags(spec);
    const heapMiB = Math.max(16, Math.floor((spec.limits?.maxMemoryBytes ?? DEFAULT_LIMITS.maxMemoryBytes) / (1024 * 1024)));
    return { command: process.execPath, args: [...flags, spec.path, ...args], heapLimitBytes: heapMiB * 1024 * 1024 };
  }
  const bytes = spec.limits?.maxMemoryBytes;
  if (bytes === undefined || tool === null) return { command: spec.path, args };
  return { command: tool, args: [`--as=${bytes}`, '--', spec.path, ...args], memoryLimitBytes: bytes };
}

/**
 * True when a memory limit is set but nothing can enforce it: a native executable where there is
 * no `prlimit` (`tool`). Callers warn the user rather than pretend.
 */
export function memoryLimitUnenforced(spec: LimitedSpec, tool: string | null = addressSpaceTool()): boolean {
  return spec.limits?.maxMemoryBytes !== undefined && spec.runtime === 'process' && !isNodeScript(spec) && tool === null;
}
