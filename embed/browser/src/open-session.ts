/**
 * The browser's one-call way to a running MEP session with a wasm extension: compile (or take)
 * the module, start it in a Web Worker (or inline), and run the handshake.
 */
import { HOST_VERSION } from '../../../host/src/session/host-info.ts';
import { createSession, type Session, type SessionOptions } from '../../../host/src/session/session.ts';
import { withCheckedArtifacts } from '../../../host/src/session/checked-artifacts.ts';
import { createWasmTransport, type SpawnWasmWorker, type WasmGrants, type WasmIsolation, type WasmLimits } from '../../../host/src/transport/wasm/index.ts';
import type { LogSink } from '../../../host/src/transport/types.ts';
import type { InitializeResult } from '../../../host/src/protocol/index.ts';
import { createWebWorkerSpawner, type WebWorkerSpawnerOptions } from './web-worker-spawner.ts';

/** Host identity sent by browser embeddings. */
export const BROWSER_HOST_INFO = { kind: 'browser', name: 'mep-runtime', version: HOST_VERSION } as const;

/** The spawner of sessions without worker options, so they share one worker pool (worker-pool.ts). */
let defaultSpawner: SpawnWasmWorker | undefined;

/** Options of {@link openWasmSession}. */
export interface OpenWasmSessionOptions {
  /** Name for messages: the extension id or file name. */
  name: string;
  /** The guest: wasm bytes, or a module compiled beforehand (e.g. `WebAssembly.compileStreaming`). */
  module: Uint8Array | ArrayBuffer | WebAssembly.Module;
  /** `worker` (default): killable at its deadline, page stays responsive. `inline`: trusted guests only. */
  isolation?: WasmIsolation;
  /** Overrides of the default limits (256 MiB memory, 64 MiB messages, 30 s per call). */
  limits?: Partial<WasmLimits>;
  /** What the guest may use beyond the sandbox; nothing by default. */
  grants?: WasmGrants;
  /** Where the worker script is, and the reply mailbox size. Sessions without it share one pool of workers. */
  worker?: WebWorkerSpawnerOptions;
  /** Receives the guest's log lines. */
  log?: LogSink;
  /** Session options other than the transport. */
  session?: Omit<SessionOptions, 'transport'>;
}

/** What {@link openWasmSession} resolves with. */
export interface OpenedWasmSession {
  /**
   * The ready session; `close()` shuts it down gracefully and terminates its worker. Its
   * `generate` refuses (ERR_ARTIFACT) an artifact `mep generate` would not write: `../x`, `/etc/x`, `a\u202Eb`.
   */
  session: Session;
  /** The extension's validated initialize result. */
  initialize: InitializeResult;
  /** Stops the guest now (terminates its worker); pending calls reject. For a Stop button. */
  terminate(): Promise<void>;
}

/**
 * Starts a wasm extension and runs `initialize`; resolves with the ready session. The caller
 * must `close()` it (which also terminates its worker).
 *
 * @example
 * const { session } = await openWasmSession({ name: 'avro', module: await WebAssembly.compileStreaming(fetch('avro.wasm')) });
 * try { const result = await session.generate({ ir, target: 'avro', options: {} }); }
 * finally { await session.close(); }
 */
export async function openWasmSession(options: OpenWasmSessionOptions): Promise<OpenedWasmSession> {
  const isolation = options.isolation ?? 'worker';
  const transport = await createWasmTransport({
    name: options.name,
    module: options.module,
    isolation,
    limits: options.limits,
    grants: options.grants,
    log: options.log,
    ...(isolation === 'worker' ? { spawnWorker: options.worker === undefined ? (defaultSpawner ??= createWebWorkerSpawner()) : createWebWorkerSpawner(options.worker) } : {}),
  });
  // The page shows or offers what generate returns: each artifact is checked as `mep generate` checks what it writes.
  const session = withCheckedArtifacts(createSession({ host: BROWSER_HOST_INFO, ...options.session, transport }));
  try {
    return { session, initialize: await session.start(), terminate: () => transport.close() };
  } catch (error) {
    await session.close();
    throw error;
  }
}
