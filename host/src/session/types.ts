/**
 * The types of a session, shared by its parts (session-core.ts, opening.ts, operations.ts,
 * closing.ts) and the file that assembles them (session.ts), so that every import points from
 * the assembler to its parts and none back.
 */
import type {
  Artifact,
  Capabilities,
  ClaimSet,
  CompileParams,
  CompileResult,
  GenerateParams,
  GenerateResult,
  HostInfo,
  InitializeResult,
  LogParams,
  Permissions,
  ProgressParams,
  TransformParams,
  TransformResult,
  ValidateParams,
  ValidateResult,
  Workspace,
} from '../protocol/index.ts';
import type { WithIrText } from '../protocol/json-text.ts';
import type { Peer } from '../rpc/index.ts';
import type { Disposer, Transport } from '../transport/types.ts';
import type { OutputLimits } from './output-budget.ts';
import type { SessionStateValue } from './state.ts';
import type { StreamWindowLimits } from './stream-window.ts';

/** Options for {@link createSession}; defaults are applied once, in session-core.ts. */
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
  /**
   * What one generate call may write, its artifacts streamed and returned together: bytes
   * (`maxOutputBytes`, default 4 GiB) and files (`maxOutputFiles`, default 1,000,000). Past
   * either the call fails with ERR_LIMIT before the artifact is handed on.
   */
  outputLimits?: OutputLimits;
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

/**
 * Options of one generate call. Artifacts the backend streams (morphir.backend.artifact, an
 * extension of MEP 0.1) go to `onArtifact` as they arrive, each checked against MEP 0.1's
 * artifact shape first, and are then not in the result; without it they are collected into the
 * result's `artifacts`, before the ones the result carried, as if they had come in it.
 */
export interface GenerateOptions extends CallOptions {
  /**
   * Takes each streamed artifact; the call resolves only once every promise it returned has. A
   * throw or rejection fails the call with that error once the backend has answered. While its
   * promises in hand exceed {@link GenerateOptions.streamWindow}, the extension is held back
   * (back-pressure); promises still unsettled at the call's deadline fail it with ERR_TIMEOUT.
   */
  onArtifact?: (artifact: Artifact) => void | Promise<void>;
  /** How much `onArtifact` may have in hand before the extension is held back. Default 16 MiB of content, 64 artifacts. */
  streamWindow?: StreamWindowLimits;
  /**
   * Without `onArtifact`: the most content (characters) of streamed artifacts collected into
   * the result, past which the call fails with ERR_LIMIT. Default 64 MiB, the default message
   * limit: what one result could have carried.
   */
  maxCollectedBytes?: number;
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
  generate(params: WithIrText<GenerateParams>, options?: GenerateOptions): Promise<GenerateResult>;
  /** `morphir.validator.validate`, refused before dispatch unless advertised. */
  validate(params: WithIrText<ValidateParams>, options?: CallOptions): Promise<ValidateResult>;
  /** `morphir.transform.transform`, refused before dispatch unless advertised. */
  transform(params: WithIrText<TransformParams>, options?: CallOptions): Promise<TransformResult>;
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
