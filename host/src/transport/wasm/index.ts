/**
 * The wasm transport: MEP extensions run as Extism plugins, sandboxed (no WASI, no paths, no
 * hosts, granted config only) and limited (memory, message sizes, per-call deadline). This is
 * the only file that imports `@extism/extism`, and it imports no `node:` module, so it also runs
 * in browsers and edge runtimes. Node's worker binding is `node/worker.ts`.
 *
 * The SDK is loaded on first use, not when this module is imported: its Node build imports
 * `node:wasi` at the top, and Node prints "ExperimentalWarning: WASI is an experimental feature"
 * for that import alone, although the sandbox never enables WASI. So importing mep-runtime
 * loads nothing of it, and the first plugin loads it with exactly that warning held back.
 */
import type { default as CreatePlugin, ExtismPluginOptions } from '@extism/extism';
import { ErrorCode, LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import type { LogSink } from '../types.ts';
import { createWasmEngine, type CreateExtismPlugin, type ExtismHostFunction, type WasmEngine, type WasmEngineOptions } from './engine.ts';
import { checkSourceDateEpoch, resolveWasmLimits, type WasmGrants, type WasmLimits } from './limits.ts';
import { checkGuestModule, compileExtensionModule, hasStartFunction } from './module.ts';
import { createInlineRunner } from './runner.ts';
import { createStartDeadline } from './start-deadline.ts';
import { createGuestTransport, type WasmTransport } from './guest-transport.ts';
import { Interrupt } from './engine.ts';
import type { GuestRunner, RunnerCallbacks } from './runner.ts';
import { mapExtensionError, withSourceMappedErrors } from '../source-map/mapped-errors.ts';
import { moduleSourceMap } from '../source-map/wasm-section.ts';
import { workerPoolOf } from './worker-pool.ts';
import type { SpawnWasmWorker, WarmOptions } from './worker-pool.ts';
import { createWorkerRunner } from './worker-runner.ts';

export { GUEST_MEMORY_LOG } from './engine.ts';
export { checkGuestModule, checkModuleSize, compileExtensionModule, hasStartFunction, type CompileExtensionOptions } from './module.ts';
export { createModuleCache, type ModuleCache } from './module-cache.ts';
export { createStartDeadline, type StartDeadline } from './start-deadline.ts';
export { guestAbi, hostTrampolineBytes, type GuestAbi } from './host-channel.ts';
export { DEFAULT_SOURCE_DATE_EPOCH, DEFAULT_WASM_LIMITS, type WasmGrants, type WasmLimits } from './limits.ts';
export type { WasmTransport } from './guest-transport.ts';
export type { SpawnWasmWorker, WarmOptions, WasmWorkerHandle } from './worker-pool.ts';

/** Where the guest runs: on the calling thread, or in a worker thread that can be killed. */
export type WasmIsolation = 'inline' | 'worker';

/** Options of {@link createWasmTransport}. */
export interface WasmTransportOptions {
  /** The extension id or artifact path, used in every error message. */
  name: string;
  /** The guest: wasm bytes (compiled once and cached) or a module from {@link compileExtensionModule}. */
  module: Uint8Array | ArrayBuffer | WebAssembly.Module;
  /** Overrides of {@link DEFAULT_WASM_LIMITS}. */
  limits?: Partial<WasmLimits>;
  /** What the guest may use beyond the sandbox; nothing by default. */
  grants?: WasmGrants;
  /**
   * `worker` for untrusted guests: a guest that never polls `mep_interrupt` is killed at its
   * deadline, and so is one whose start function does not return; the host thread stays
   * responsive. `inline` is faster and needs no threads, but such a guest blocks the calling
   * thread forever; use it only for trusted guests (a module with a start function is refused).
   */
  isolation: WasmIsolation;
  /** Aborting it stops the opening (and the worker it was preparing); the promise rejects. */
  signal?: AbortSignal;
  /** Receives the guest's Extism log lines. */
  log?: LogSink;
  /** Starts a worker for `isolation: 'worker'` (Node: `createNodeWasmWorkerSpawner()`). */
  spawnWorker?: SpawnWasmWorker;
  /**
   * The compiled host-channel trampoline, only where compiling wasm at run time is forbidden
   * (workerd: bind `hostTrampolineBytes()` as a `.wasm` module). Elsewhere it is compiled once
   * per thread. Without either, a guest runs degraded and a warning is logged.
   */
  hostTrampoline?: WebAssembly.Module;
}

const refuseFetch = (): Promise<never> => Promise.reject(new Error('a MEP wasm guest has no network access'));

type EmitWarning = (warning: string | Error, ...rest: unknown[]) => void;
let sdk: Promise<typeof CreatePlugin> | undefined;

/** True for the one warning the SDK's `node:wasi` import causes (its type and text, as Node words them). */
function isWasiImportWarning(warning: string | Error, rest: readonly unknown[]): boolean {
  const type = warning instanceof Error ? warning.name : typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
  const text = warning instanceof Error ? warning.message : warning;
  return type === 'ExperimentalWarning' && /^WASI is an experimental feature/.test(text);
}

/**
 * `@extism/extism`, imported once. Where there is a `process` (Node, Bun, Deno's Node layer),
 * only its WASI experimental warning is dropped while the import runs; every other warning
 * passes, and nothing is held back afterwards.
 */
export function loadExtismSdk(): Promise<typeof CreatePlugin> {
  sdk ??= (async () => {
    const proc = (globalThis as { process?: { emitWarning?: EmitWarning } }).process;
    const original = proc?.emitWarning;
    let filter: EmitWarning | undefined;
    if (proc !== undefined && typeof original === 'function') {
      filter = function (this: unknown, warning, ...rest) {
        if (!isWasiImportWarning(warning, rest)) original.call(this, warning, ...rest);
      };
      proc.emitWarning = filter;
    }
    try {
      return (await import('@extism/extism')).default;
    } finally {
      // Put it back unless someone replaced it meanwhile (then theirs stays).
      if (proc !== undefined && filter !== undefined && proc.emitWarning === filter) proc.emitWarning = original;
    }
  })();
  return sdk;
}

/** Creates a foreground Extism plugin with nothing but the given functions and config. */
const extismPlugin: CreateExtismPlugin = async (module, { functions, config, log, memory }) => {
  const createPlugin = await loadExtismSdk();
  if (memory !== undefined) functions = { ...functions, [memory.module]: { [memory.name]: memoryImport(memory.memory) } };
  // A bare Module (config goes in the options) and a fetch of our own: a manifest object or the
  // SDK's default fetch make it touch the global Response/fetch, which loads Node's HTTP client
  // (tens of milliseconds in a new process) for a guest that has no network anyway.
  return createPlugin(module, {
    useWasi: false,
    fetch: refuseFetch,
    runInWorker: false,
    enableWasiOutput: false,
    allowedPaths: {},
    allowedHosts: [],
    config,
    // Our host functions take a structural subset of Extism's CallContext.
    functions: functions as unknown as ExtismPluginOptions['functions'],
    logger: {
      debug: (message: unknown) => log('debug', String(message)),
      info: (message: unknown) => log('info', String(message)),
      warn: (message: unknown) => log('warn', String(message)),
      error: (message: unknown) => log('error', String(message)),
    } as unknown as Console,
  });
};

/**
 * A recycled memory as the SDK's import builder takes it. Extism 1.0.3's foreground plugin builds
 * the instance's imports from `functions` alone, as `imports[ns][fn] = functions[ns][fn].bind(null,
 * context)`, and has no option for an import that is not a function: the entry answers that
 * `bind` with the memory itself. Should a later SDK build imports otherwise, the instantiation
 * fails with a LinkError (reported as a crash at instantiation, never a guest on another memory),
 * and the engine checks that the memory the instance exports is this one before recycling it.
 */
function memoryImport(memory: WebAssembly.Memory): ExtismHostFunction {
  return { bind: () => memory } as unknown as ExtismHostFunction;
}

/**
 * Instantiates one guest engine on the calling thread. Used by inline transports and by the
 * worker entry; most callers want {@link createWasmTransport}.
 */
export function createExtismEngine(module: WebAssembly.Module, options: WasmEngineOptions): Promise<WasmEngine> {
  return createWasmEngine(module, options, extismPlugin);
}

/**
 * Starts one instance of a wasm extension and returns a Transport to it. Rejects with
 * MepError(-32012 PermissionDenied) when the guest imports WASI or anything else the sandbox does
 * not provide (or, inline, has a start function), MepError(ERR_LIMIT) when the module is over
 * `maxModuleBytes` or its initial memory exceeds the cap, MepError(ERR_USAGE) for a module that
 * is not an MEP guest, MepError(ERR_TIMEOUT) when compiling it, or (worker isolation) instantiating
 * it and running its start function, took longer than `limits.callTimeoutMs`, and the abort error
 * when `signal` aborted. After a trap, limit, deadline or protocol violation the
 * transport closes with that typed error; create a new transport to continue. A guest built by
 * `mep build` carries its source map: error responses then name the author's sources
 * (`error.data.stack`, `frames`, `origin`; see source-map/mapped-errors.ts).
 *
 * @example
 * const transport = await createWasmTransport({ name: 'avro', module: bytes, isolation: 'inline' });
 * try {
 *   transport.onMessage((message) => console.log(message));
 *   transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
 * } finally {
 *   await transport.close();
 * }
 */
export async function createWasmTransport(options: WasmTransportOptions): Promise<WasmTransport> {
  const { module, engineOptions } = await boundedGuestOf(options);
  const { name, limits } = engineOptions;
  const transport = await createGuestTransport({ name, limits, log: options.log }, (callbacks) =>
    options.isolation === 'worker'
      ? createWorkerRunner(options.spawnWorker as SpawnWasmWorker, module, engineOptions, callbacks, { signal: options.signal })
      : createInlineRunner(createExtismEngine, module, { ...engineOptions, hostTrampoline: options.hostTrampoline }, callbacks),
  );
  return withSourceMappedErrors(transport, { loadMap: moduleSourceMap(module) });
}

/**
 * {@link guestOf} within the call deadline (compiling; the worker's engine has the same deadline
 * of its own) and `options.signal`. Inline, nothing can stop guest code once it runs, and a start
 * function runs inside instantiation, before any deadline could be polled: such a module is
 * refused there.
 */
async function boundedGuestOf(options: WasmTransportOptions, entry?: string): Promise<Awaited<ReturnType<typeof guestOf>>> {
  const deadline = createStartDeadline(options.name, resolveWasmLimits(options.name, options.limits).callTimeoutMs, options.signal);
  let guest: Awaited<ReturnType<typeof guestOf>>;
  try {
    guest = await deadline.race(guestOf(options, entry));
  } finally {
    deadline.dispose();
  }
  if (options.isolation === 'inline') refuseStartFunction(guest.module, guest.engineOptions.name);
  return guest;
}

function refuseStartFunction(module: WebAssembly.Module, name: string): void {
  if (hasStartFunction(module) !== true) return;
  throw new MepError(
    ErrorCode.PermissionDenied,
    `Wasm extension "${name}" has a start function, which runs while it is instantiated, where inline isolation cannot stop it: run it with isolation 'worker' (its start is then bounded by the call deadline), or rebuild it without a start section.`,
    { data: { extension: name, reason: 'start-function', isolation: 'inline' } },
  );
}

/**
 * Gets a later {@link createWasmTransport} with the same options under way: with worker
 * isolation, a worker thread starts and instantiates the guest while the caller goes on (e.g.
 * reads the input), and the transport then takes that worker. Resolves once the thread was
 * started (its remaining work runs on that thread); never rejects, because the transport
 * reports any failure itself. Inline isolation has nothing to start ahead. `warm` says which
 * thread may be prepared (WarmOptions of the pool).
 */
export async function warmWasmTransport(options: WasmTransportOptions, warm: WarmOptions = {}): Promise<void> {
  if (options.isolation !== 'worker') return;
  try {
    const { module, engineOptions } = await guestOf(options);
    await workerPoolOf(options.spawnWorker as SpawnWasmWorker).warm({ module, ...engineOptions }, warm);
  } catch {
    // createWasmTransport reports the same failure.
  }
}

/** One instance of a plugin whose export {@link openWasmExport} named: bytes in, bytes out. */
export interface WasmExportCaller {
  /** Runs the export once with `input`; resolves with its output (empty when it set none). */
  call(input: Uint8Array): Promise<Uint8Array>;
  /** Stops the instance; resolves when nothing of it runs. */
  close(): Promise<void>;
}

/**
 * Starts one instance of any Extism plugin to call its export `entry` with raw bytes, as
 * `extism call` does, in the same sandbox and limits as an extension (no WASI, memory capped, the
 * deadline enforced — in worker isolation even for a plugin that never yields). A call that
 * fails rejects with the typed error of the engine (ERR_TIMEOUT, ERR_LIMIT, -32010 for an error the
 * plugin set, its stack mapped when the module carries a source map); the instance survives an
 * error the plugin reported itself, not a trap.
 *
 * @example
 * const plugin = await openWasmExport({ name: 'greet.wasm', module: bytes, entry: 'greet', isolation: 'inline' });
 * try { console.log(new TextDecoder().decode(await plugin.call(new TextEncoder().encode('world')))); } finally { await plugin.close(); }
 */
export async function openWasmExport(options: WasmTransportOptions & { entry: string }): Promise<WasmExportCaller> {
  const { module, engineOptions } = await boundedGuestOf(options, options.entry);
  const { name, limits } = engineOptions;
  let dead: MepError | undefined;
  const callbacks: RunnerCallbacks = {
    onNotify: (bytes) => options.log?.({ level: 'info', message: new TextDecoder().decode(bytes), source: name }),
    // A plain export is sent no morphir.initialize, so no artifacts stream; one that does is shown as its envelope.
    onArtifact: (bytes, envelopeBytes) =>
      options.log?.({ level: 'info', message: `${new TextDecoder().decode(bytes.subarray(0, envelopeBytes))} (an artifact of ${bytes.length - envelopeBytes} bytes)`, source: name }),
    // Nothing answers a plugin's requests here (no session, no secrets): it sees no reply.
    onRequest: () => null,
    onLog: (level, message) => options.log?.({ level, message, source: name }),
    onDead: (error) => void (dead = error),
  };
  const entryOptions = { ...engineOptions, entry: options.entry };
  const runner: GuestRunner =
    options.isolation === 'worker'
      ? await createWorkerRunner(options.spawnWorker as SpawnWasmWorker, module, entryOptions, callbacks, { signal: options.signal })
      : await createInlineRunner(createExtismEngine, module, { ...entryOptions, hostTrampoline: options.hostTrampoline }, callbacks);
  const mapped = (error: MepError): MepError => mapExtensionError(error, { loadMap: moduleSourceMap(module) });
  return {
    async call(input) {
      if (dead !== undefined) throw dead;
      if (input.length > limits.maxRequestBytes) {
        throw new MepError(LocalErrorCode.Limit, `An input of ${input.length} bytes for wasm plugin "${name}" exceeds its message size limit of ${limits.maxRequestBytes}; nothing was sent. ${raiseAdvice('maxRequestBytes', limits.maxRequestBytes, input.length)}`, {
          data: { extension: name, limit: 'maxRequestBytes', size: input.length },
        });
      }
      const outcome = await runner.run(input.slice(), limits.callTimeoutMs);
      if (outcome.interrupt === Interrupt.Deadline || (!outcome.ok && outcome.error.code === LocalErrorCode.Timeout) || outcome.elapsedMs > limits.callTimeoutMs) {
        dead = new MepError(LocalErrorCode.Timeout, `Wasm plugin "${name}" did not finish ${options.entry} within ${limits.callTimeoutMs} ms and was stopped. ${raiseAdvice('callTimeoutMs', limits.callTimeoutMs)}`, {
          data: { extension: name, export: options.entry, timeoutMs: limits.callTimeoutMs, limit: 'callTimeoutMs' },
        });
        throw dead;
      }
      if (!outcome.ok) {
        const error = mapped(new MepError(outcome.error.code, outcome.error.message, { data: outcome.error.data }));
        if (!outcome.guestError) dead = error;
        throw error;
      }
      return outcome.output ?? new Uint8Array(0);
    },
    close: () => runner.close(),
  };
}

/** The compiled guest and its engine options, or the error that makes the options unusable. */
async function guestOf(options: WasmTransportOptions, entry = 'handle'): Promise<{ module: WebAssembly.Module; engineOptions: { name: string; limits: WasmLimits; grants: WasmGrants } }> {
  const { name, isolation, spawnWorker } = options;
  const limits = resolveWasmLimits(name, options.limits);
  const epoch = options.grants?.sourceDateEpoch;
  // The guest reads the instant as a config entry, so any Extism host can set it the same way.
  const config = { ...(options.grants?.config ?? {}), ...(epoch === undefined ? {} : { SOURCE_DATE_EPOCH: String(checkSourceDateEpoch(epoch, 'sourceDateEpoch')) }) };
  const grants: WasmGrants = { config, clock: options.grants?.clock === true, random: options.grants?.random === true };
  if (isolation === 'worker' && spawnWorker === undefined) {
    throw new MepError(LocalErrorCode.Usage, `Worker isolation for wasm extension "${name}" needs spawnWorker: pass createNodeWasmWorkerSpawner() from transport/wasm/node/worker.ts in Node, or use isolation 'inline' for a trusted guest.`, {
      data: { extension: name },
    });
  }
  const module = await compileExtensionModule(options.module, { name, limits });
  checkGuestModule(module, name, entry);
  return { module, engineOptions: { name, limits, grants } };
}
