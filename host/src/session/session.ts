/**
 * A MEP 0.1 session with one extension, over any transport. It owns the lifecycle order
 * (initialize, validate, initialized, operations, shutdown, exit), version negotiation, claim-set
 * agreement and the refuse-before-dispatch checks. It never spawns a process or instantiates wasm.
 */
import {
  CompileResult,
  GenerateResult,
  InitializeResult,
  Method,
  PROTOCOL_VERSIONS,
  TransformResult,
  ValidateResult,
  checkAgreement,
  checkHostRequirement,
  decodeResult,
  normalizeCompileParams,
} from '../protocol/index.ts';
import type {
  Capabilities,
  ClaimSet,
  CompileParams,
  GenerateParams,
  HostInfo,
  LogParams,
  Permissions,
  ProgressParams,
  TransformParams,
  ValidateParams,
  Workspace,
} from '../protocol/index.ts';
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { createPeer } from '../rpc/index.ts';
import type { Peer } from '../rpc/index.ts';
import type { Disposer, Transport } from '../transport/types.ts';
import { checkCompile, checkGenerate, checkTransform, checkValidate } from './capability-checks.ts';
import { Lifecycle, SessionState } from './state.ts';
import type { SessionStateValue } from './state.ts';
import { HOST_INFO } from './host-info.ts';

/** Options for {@link createSession}; defaults are applied once, here. */
export interface SessionOptions {
  /** The channel to the extension; the session closes it when it ends. */
  transport: Transport;
  /** Who we are, sent in `initialize` and compared with `requires.host`. */
  host?: HostInfo;
  /** Protocol versions offered, most preferred first. Default `["0.1"]`. */
  protocolVersions?: readonly string[];
  /** Permissions granted to the extension (MEP 0.1, Security). Default: nothing. */
  permissions?: Permissions;
  /** Optional workspace; absent for configuration-free work. */
  workspace?: Workspace;
  /** A pinned claim set (from a lock or an earlier describe): the initialize result must agree. */
  claims?: ClaimSet;
  /** Per-request timeout for operations. Default 30 s (the reference host's limit). */
  requestTimeoutMs?: number;
  /** How long to wait for the shutdown response before failing. Default 5 s. */
  shutdownTimeoutMs?: number;
}

/** Options of one operation call. */
export interface CallOptions {
  /** Cancels the request: sends `$/cancelRequest`, rejects with -32800. */
  signal?: AbortSignal;
  /** Overrides the session's request timeout. */
  timeoutMs?: number;
  /** A specific JSON-RPC id (string or integer); otherwise the peer assigns one. */
  id?: string | number;
}

/** A live session; see {@link createSession}. */
export interface Session {
  /** The extension's name for messages: its id once known, else the transport's name. */
  readonly extension: string;
  /** The current lifecycle state. */
  readonly state: SessionStateValue;
  /** The validated initialize result, once `start()` resolved. */
  readonly initializeResult: InitializeResult | undefined;
  /** The JSON-RPC peer, for requests the extension makes (`secret.resolve`) and raw calls. */
  readonly peer: Peer;
  /** initialize → validate → initialized. Resolves with the negotiated result. */
  start(): Promise<InitializeResult>;
  /** Read the capability claim set (allowed before initialize and until shutdown). */
  describe(options?: CallOptions): Promise<unknown>;
  /** `morphir.ping`. */
  ping(options?: CallOptions): Promise<unknown>;
  /** `morphir.extension.info` (ready only). */
  info(options?: CallOptions): Promise<unknown>;
  /** `morphir.extension.capabilities` (ready only). */
  capabilities(options?: CallOptions): Promise<Capabilities>;
  /** `morphir.frontend.compile`, refused before dispatch unless advertised. */
  compile(params: CompileParams, options?: CallOptions): Promise<CompileResult>;
  /** `morphir.backend.generate`, refused before dispatch unless advertised. */
  generate(params: GenerateParams, options?: CallOptions): Promise<GenerateResult>;
  /** `morphir.validator.validate`, refused before dispatch unless advertised. */
  validate(params: ValidateParams, options?: CallOptions): Promise<ValidateResult>;
  /** `morphir.transform.transform`, refused before dispatch unless advertised. */
  transform(params: TransformParams, options?: CallOptions): Promise<TransformResult>;
  /** shutdown → wait for its response → exit → close the transport. */
  shutdown(): Promise<void>;
  /** End the session whatever its state (graceful when ready); idempotent. */
  close(): Promise<void>;
  /** Progress notifications (`morphir.progress`) from the extension. */
  onProgress(listener: (progress: ProgressParams) => void): Disposer;
  /** Log notifications (`morphir.log`) from the extension. */
  onLog(listener: (log: LogParams) => void): Disposer;
  /** Lifecycle transitions. */
  onStateChange(listener: (state: SessionStateValue, previous: SessionStateValue) => void): Disposer;
}

/**
 * Create a session over `options.transport`. Nothing is sent until `start()` or `describe()`.
 *
 * @example
 * const session = createSession({ transport });
 * try {
 *   await session.start();
 *   const result = await session.generate({ ir, target: 'avro', options: {} });
 * } finally {
 *   await session.close();
 * }
 */
export function createSession(options: SessionOptions): Session {
  const transport = options.transport;
  const host = options.host ?? HOST_INFO;
  const offered = [...(options.protocolVersions ?? PROTOCOL_VERSIONS)];
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 5_000;
  const peer = createPeer(transport);
  let extension = transport.name;
  let init: InitializeResult | undefined;
  const lifecycle = new Lifecycle(transport.name);
  let closing: Promise<void> | undefined;

  transport.onClose(() => {
    // While stopping, shutdown()/close() decide between stopped and failed: an extension that
    // exits right after morphir.exit did exactly what it should.
    if (lifecycle.isTerminal || lifecycle.state === SessionState.Stopping) return;
    lifecycle.fail();
  });

  function call(method: string, params: unknown, opts: CallOptions = {}, timeoutMs = requestTimeoutMs): Promise<unknown> {
    return peer.request(method, params, { timeoutMs: opts.timeoutMs ?? timeoutMs, signal: opts.signal, id: opts.id });
  }

  async function operation<T>(method: string, params: unknown, schema: Parameters<typeof decodeResult>[0], opts?: CallOptions): Promise<T> {
    lifecycle.require(`call ${method}`, SessionState.Ready);
    try {
      const raw = await call(method, params, opts);
      return decodeResult(schema, raw, `the ${method} result from '${extension}'`) as T;
    } catch (error) {
      failOnFatal(error);
      throw error;
    }
  }

  /** Transport-level failures end the session; wire errors and cancellations do not. */
  function failOnFatal(error: unknown): void {
    if (!isMepError(error)) return;
    const fatal: unknown[] = [LocalErrorCode.TransportClosed, LocalErrorCode.ExtensionCrashed, LocalErrorCode.Framing, LocalErrorCode.Protocol, LocalErrorCode.Limit];
    if (fatal.includes(error.code)) lifecycle.fail();
  }

  async function start(): Promise<InitializeResult> {
    lifecycle.require('initialize', SessionState.Starting);
    if (options.claims) {
      const verdict = checkHostRequirement(options.claims, host.version);
      if (!verdict.ok) {
        lifecycle.fail();
        await transport.close();
        throw new MepError(LocalErrorCode.HostVersion, `${verdict.message} Upgrade mep-runtime or pick another version of the extension.`, {
          data: { extension: options.claims.extension.id, range: verdict.range, hostVersion: host.version },
        });
      }
    }
    lifecycle.moveTo(SessionState.Initializing);
    try {
      const raw = await call(Method.Initialize, {
        protocolVersions: offered,
        host,
        ...(options.workspace ? { workspace: options.workspace } : {}),
        capabilities: { cancellation: true, progress: true },
        permissions: options.permissions ?? { workspaceRead: false, workspaceWrite: false, network: false, environment: [] },
      });
      const result = decodeResult(InitializeResult, raw, `the initialize result from '${extension}'`) as InitializeResult;
      extension = result.extension.id;
      // MEP 0.1, Lifecycle step 3: validate the selected protocol version and capabilities.
      if (!offered.includes(result.protocolVersion)) {
        throw new MepError(ErrorCode.ProtocolVersionMismatch, `Extension '${extension}' selected protocol version '${result.protocolVersion}', which this host did not offer (${offered.join(', ')}).`, {
          data: { hostVersions: offered, extensionVersions: [result.protocolVersion] },
        });
      }
      if (options.claims) {
        const agreement = checkAgreement(result, options.claims);
        if (!agreement.ok) {
          throw new MepError(LocalErrorCode.ClaimsMismatch, `Extension '${extension}' disagrees with its claim set (rule ${agreement.rule}): ${agreement.message}`, {
            data: { extension, rule: agreement.rule },
          });
        }
      }
      init = result;
      peer.notify(Method.Initialized, {});
      lifecycle.moveTo(SessionState.Ready);
      return result;
    } catch (error) {
      lifecycle.fail();
      await transport.close();
      throw error;
    }
  }

  async function shutdown(): Promise<void> {
    lifecycle.require('shut down', SessionState.Ready);
    lifecycle.moveTo(SessionState.Stopping);
    try {
      await call(Method.Shutdown, {}, {}, shutdownTimeoutMs);
    } catch (error) {
      lifecycle.fail();
      await transport.close();
      if (isMepError(error) && (error.code === LocalErrorCode.TransportClosed || error.code === LocalErrorCode.ExtensionCrashed)) {
        // MEP 0.1, Lifecycle: exiting before the shutdown response is an extension failure.
        throw new MepError(ErrorCode.ExtensionFailure, `Extension '${extension}' stopped before answering morphir.shutdown.`, { cause: error, data: { extension } });
      }
      throw error;
    }
    trySendExit();
    await transport.close();
    if (!lifecycle.isTerminal) lifecycle.moveTo(SessionState.Stopped);
  }

  function trySendExit(): void {
    try {
      peer.notify(Method.Exit, {});
    } catch {
      // The transport is already closed: there is nobody left to tell, and close() follows.
    }
  }

  async function close(): Promise<void> {
    closing ??= (async () => {
      if (lifecycle.state === SessionState.Ready) {
        try {
          await shutdown();
          return;
        } catch {
          // Shutdown failed: the session is failed and the transport closed; close() still ends quietly.
        }
      } else if (lifecycle.state === SessionState.Starting) {
        // MEP 0.1, Capability claims: a describe-only conversation ends with morphir.exit.
        trySendExit();
        lifecycle.moveTo(SessionState.Stopping);
      }
      await transport.close();
      peer.close();
      if (!lifecycle.isTerminal) lifecycle.moveTo(SessionState.Stopped);
    })();
    return closing;
  }

  function negotiated(): Capabilities {
    return (init as InitializeResult).capabilities;
  }

  return {
    get extension() {
      return extension;
    },
    get state() {
      return lifecycle.state;
    },
    get initializeResult() {
      return init;
    },
    peer,
    start,
    async describe(opts) {
      lifecycle.require('describe', SessionState.Starting, SessionState.Initializing, SessionState.Ready);
      return call(Method.Describe, { protocolVersions: offered }, opts);
    },
    async ping(opts) {
      lifecycle.require('ping', SessionState.Starting, SessionState.Ready);
      return call(Method.Ping, {}, opts);
    },
    async info(opts) {
      lifecycle.require('read extension info', SessionState.Ready);
      return call(Method.Info, {}, opts);
    },
    async capabilities(opts) {
      return operation<Capabilities>(Method.Capabilities, {}, InitializeResult.shape.capabilities, opts);
    },
    async compile(params, opts) {
      lifecycle.require('compile', SessionState.Ready);
      const normalized = normalizeCompileParams(params);
      checkCompile(extension, negotiated(), normalized, normalized.sources.documents.length);
      return operation<CompileResult>(Method.FrontendCompile, normalized, CompileResult, opts);
    },
    async generate(params, opts) {
      lifecycle.require('generate', SessionState.Ready);
      checkGenerate(extension, negotiated(), params);
      return operation<GenerateResult>(Method.BackendGenerate, params, GenerateResult, opts);
    },
    async validate(params, opts) {
      lifecycle.require('validate', SessionState.Ready);
      checkValidate(extension, negotiated(), params);
      return operation<ValidateResult>(Method.ValidatorValidate, params, ValidateResult, opts);
    },
    async transform(params, opts) {
      lifecycle.require('transform', SessionState.Ready);
      checkTransform(extension, negotiated(), params);
      return operation<TransformResult>(Method.TransformTransform, params, TransformResult, opts);
    },
    shutdown,
    close,
    onProgress(listener) {
      return peer.onNotification(Method.Progress, (params: unknown) => listener(params as ProgressParams));
    },
    onLog(listener) {
      return peer.onNotification(Method.Log, (params: unknown) => listener(params as LogParams));
    },
    onStateChange(listener) {
      return lifecycle.onChange(listener);
    },
  };
}
