/**
 * What every phase of a session shares: the transport and its peer, the lifecycle, what the
 * handshake learned (the extension's id, the initialize result), the resolved options, and the
 * two rules every request follows (the session's timeout, failing on transport-level errors).
 * Internal to session/: `createSession` builds one and hands it to each phase.
 */
import { PROTOCOL_VERSIONS } from '../protocol/index.ts';
import type { Capabilities, ClaimSet, HostInfo, InitializeResult, Permissions, Workspace } from '../protocol/index.ts';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { createPeer } from '../rpc/index.ts';
import type { Peer } from '../rpc/index.ts';
import type { Transport } from '../transport/types.ts';
import { HOST_INFO } from './host-info.ts';
import type { OutputLimits } from './output-budget.ts';
import { Lifecycle, SessionState } from './state.ts';
import type { CallOptions, SessionOptions } from './types.ts';

/** The shared state of one session; see the file comment. */
export interface SessionCore {
  readonly transport: Transport;
  readonly peer: Peer;
  readonly lifecycle: Lifecycle;
  readonly host: HostInfo;
  /** Protocol versions offered, most preferred first. */
  readonly offered: readonly string[];
  readonly permissions: Permissions;
  readonly workspace: Workspace | undefined;
  readonly claims: ClaimSet | undefined;
  readonly shutdownTimeoutMs: number;
  /** The default deadline of a request, in ms. */
  readonly requestTimeoutMs: number;
  /** What one generate call may write (defaults applied where it is counted, output-budget.ts). */
  readonly outputLimits: OutputLimits;
  /** The extension's name for messages: its id once initialized, else the transport's name. */
  extension: string;
  /** The validated initialize result, once the handshake succeeded. */
  init: InitializeResult | undefined;
  /** One request with the session's timeout unless `options` or `timeoutMs` say otherwise. */
  call(method: string, params: unknown, options?: CallOptions, timeoutMs?: number): Promise<unknown>;
  /** Transport-level failures end the session; wire errors, cancellations and requests refused unsent do not. */
  failOnFatal(error: unknown): void;
  /** The capabilities the handshake negotiated (ready sessions only). */
  negotiated(): Capabilities;
}

const FATAL: unknown[] = [LocalErrorCode.TransportClosed, LocalErrorCode.ExtensionCrashed, LocalErrorCode.Framing, LocalErrorCode.Protocol, LocalErrorCode.Limit];

/** Resolves the options (defaults applied once, here) and wires the lifecycle to the transport. */
export function createSessionCore(options: SessionOptions): SessionCore {
  const transport = options.transport;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const peer = createPeer(transport);
  const lifecycle = new Lifecycle(transport.name);

  transport.onClose(() => {
    // While stopping, shutdown()/close() decide between stopped and failed: an extension that
    // exits right after morphir.exit did exactly what it should.
    if (lifecycle.isTerminal || lifecycle.state === SessionState.Stopping) return;
    lifecycle.fail();
  });

  const core: SessionCore = {
    transport,
    peer,
    lifecycle,
    host: options.host ?? HOST_INFO,
    offered: [...(options.protocolVersions ?? PROTOCOL_VERSIONS)],
    permissions: options.permissions ?? { workspaceRead: false, workspaceWrite: false, network: false, environment: [] },
    workspace: options.workspace,
    claims: options.claims,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 5_000,
    requestTimeoutMs,
    outputLimits: options.outputLimits ?? {},
    extension: transport.name,
    init: undefined,
    call(method, params, opts = {}, timeoutMs = requestTimeoutMs) {
      return peer.request(method, params, { timeoutMs: opts.timeoutMs ?? timeoutMs, signal: opts.signal, id: opts.id });
    },
    failOnFatal(error) {
      // A request refused before it was sent (data.sent false: over the message size, or the
      // extension has too much unread) leaves the extension as it was.
      if (isMepError(error) && FATAL.includes(error.code) && (error.data as { sent?: unknown } | undefined)?.sent !== false) lifecycle.fail();
    },
    negotiated() {
      return (core.init as InitializeResult).capabilities;
    },
  };
  return core;
}
