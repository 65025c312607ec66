/**
 * The served host's protocol engine: `createHostServer({ open })` serves MEP sessions to any
 * number of clients, each over its own {@link ByteChannel}. It knows no socket, no process and
 * no file: the Node binding (`serve-node.ts`) supplies channels and the `open` function.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { DEFAULT_SERVE_MAX_LINE_BUFFER_BYTES, DEFAULT_SERVE_MAX_LINE_BYTES, DEFAULT_SERVE_MAX_PENDING_BYTES } from './line-transport.ts';
import type { Disposer } from '../transport/types.ts';
import { createHeldBudget } from '../framing/held-budget.ts';
import { DEFAULT_SERVE_MAX_UNSENT_BYTES, createUnsentBudget } from './unsent-budget.ts';
import { HOST_VERSION } from '../session/host-info.ts';
import type { ByteChannel } from './byte-channel.ts';
import { createConnection, type CompileProjectFolder, type OpenExtension, type ServerConnection } from './connection.ts';
import { CALLABLE_METHODS, SERVE_PROTOCOL, ServeMethod, type ServerInfo } from './methods.ts';

export type { CompileProjectFolder, OpenedExtension, OpenExtension, ServerConnection } from './connection.ts';

/** Options of {@link createHostServer}; defaults are applied once, here. */
export interface HostServerOptions {
  /** Starts the extension named in `session/open` and returns a transport to it. */
  open: OpenExtension;
  /** Serves `project/compile` (reads a project folder, writes its IR); absent: not offered. */
  compileProject?: CompileProjectFolder;
  /** How long a closing session may take to shut down gracefully before it is killed. Default 2 000 ms. */
  closeGraceMs?: number;
  /** Longest accepted request line in bytes. Default 64 MiB. */
  maxLineBytes?: number;
  /** Sessions (opening or open) one connection may hold. Default 16. */
  maxSessionsPerConnection?: number;
  /** Bytes of lines received and not finished yet, over all connections; past it the connection that passes it is dropped. Default 128 MiB, or two lines of `maxLineBytes` when more. */
  maxLineBufferBytes?: number;
  /** Calls (`session/call`, `project/compile`) one connection may have running at once. Default 64. */
  maxCallsPerConnection?: number;
  /**
   * Bytes of frames process extensions sent and the server has not finished reading (or is
   * still parsing), over all sessions; past it the session that passes it ends with ERR_LIMIT
   * (`maxFrameBufferBytes`). Default 256 MiB, or two messages of the largest size when more.
   */
  maxFrameBufferBytes?: number;
  /** Sessions (opening or open) all connections together may hold. Default 64. */
  maxSessions?: number;
  /** Unsent output to one client past which its input is paused. Default 8 MiB. */
  pauseAtBytes?: number;
  /** Unsent output to one client past which it is dropped (its sessions closed). Default 128 MiB. */
  maxPendingBytes?: number;
  /**
   * Unsent output over all clients past which the client holding the most is dropped (its
   * sessions closed), until the rest fit. Default 256 MiB, or two clients at `maxPendingBytes` when more.
   */
  maxUnsentBytes?: number;
  /** Receives operational messages, e.g. why a client was dropped. Default: none. */
  log?: (message: string) => void;
}

/** Default of {@link HostServerOptions.maxSessionsPerConnection}. */
export const DEFAULT_MAX_SESSIONS_PER_CONNECTION = 16;
/** Default of {@link HostServerOptions.maxCallsPerConnection}: what a client pipelines is held (params, a pending entry, a timer each) until answered. */
export const DEFAULT_MAX_CALLS_PER_CONNECTION = 64;
/** Default of {@link HostServerOptions.maxSessions}: each session is a process or a worker thread. */
export const DEFAULT_MAX_SESSIONS = 64;

/** Default of {@link HostServerOptions.maxFrameBufferBytes}: four frames of the default 64 MiB message limit. */
export const DEFAULT_MAX_FRAME_BUFFER_BYTES = 256 * 1024 * 1024;

/** A running served host; see {@link createHostServer}. */
export interface HostServer {
  /** Serve one client over `channel` until it ends. */
  connect(channel: ByteChannel): ServerConnection;
  /** Clients currently connected. */
  readonly connectionCount: number;
  /** Sessions currently open, over all clients. */
  readonly sessionCount: number;
  /** Session slots taken, over all clients: sessions opening, open or closing (at most `maxSessions`). */
  readonly slotCount: number;
  /** Its `maxSessions`: the slots there are. */
  readonly maxSessions: number;
  /** Bytes of unfinished frames its process extensions' sessions hold now (at most `maxFrameBufferBytes`, and one chunk). */
  readonly frameBytesHeld: number;
  /**
   * Take one of the server's session slots for a session held outside a connection (the HTTP
   * binding's pool); throws MepError(ERR_LIMIT) when all are taken. Returns the release (idempotent).
   */
  claimSlot(client: string): () => void;
  /** Receives operational messages (the `log` option), for bindings. */
  log(message: string): void;
  /** True once `close()` was called (or a client asked for `server/shutdown`). */
  readonly closing: boolean;
  /** The server's session defaults, shared by its bindings. */
  readonly closeGraceMs: number;
  /** Starts an extension (the `open` option), for bindings that hold sessions themselves. */
  readonly open: OpenExtension;
  /** Called once when the server closes (by `close()` or a client's `server/shutdown`). */
  onClose(listener: () => void): Disposer;
  /** Disconnect every client and close every session; resolves when nothing is left running. */
  close(): Promise<void>;
}

/**
 * Create a served host. Nothing runs until a channel is connected.
 *
 * @example
 * const server = createHostServer({ open: (request, { log }) => openMyTransport(request.extension, log) });
 * const connection = server.connect(channel);
 * try { await connection.closed; } finally { await server.close(); }
 */
export function createHostServer(options: HostServerOptions): HostServer {
  const closeGraceMs = options.closeGraceMs ?? 2_000;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxSessionsPerConnection = options.maxSessionsPerConnection ?? DEFAULT_MAX_SESSIONS_PER_CONNECTION;
  /** Session slots taken over all connections: opening, open or closing sessions. */
  let claimed = 0;
  // At least two lines of the largest size, so a raised --max-message is not refused outright.
  const lineBudget = createHeldBudget(options.maxLineBufferBytes ?? Math.max(DEFAULT_SERVE_MAX_LINE_BUFFER_BYTES, 2 * (options.maxLineBytes ?? DEFAULT_SERVE_MAX_LINE_BYTES)));
  const unsent = createUnsentBudget(options.maxUnsentBytes ?? Math.max(DEFAULT_SERVE_MAX_UNSENT_BYTES, 2 * (options.maxPendingBytes ?? DEFAULT_SERVE_MAX_PENDING_BYTES)));
  const frameBudget = createHeldBudget(options.maxFrameBufferBytes ?? Math.max(DEFAULT_MAX_FRAME_BUFFER_BYTES, 2 * (options.maxLineBytes ?? DEFAULT_SERVE_MAX_LINE_BYTES)));
  // Every session this server opens (over a connection or the HTTP pool) shares its frame budget.
  const open: OpenExtension = (request, context) => options.open(request, { ...context, frameBudget });
  const connections = new Set<ServerConnection>();
  const closeListeners = new Set<() => void>();
  let nextSession = 1;
  let closing: Promise<void> | undefined;

  const info = (): ServerInfo => ({
    name: 'mep-runtime',
    version: HOST_VERSION,
    protocol: SERVE_PROTOCOL,
    methods: [ServeMethod.Info, ServeMethod.Open, ServeMethod.Call, ServeMethod.Close, ...(options.compileProject ? [ServeMethod.ProjectCompile] : []), ServeMethod.Shutdown],
    callable: CALLABLE_METHODS,
  });

  const claimSession = (client: string): (() => void) => {
    if (claimed >= maxSessions) {
      throw new MepError(
        LocalErrorCode.Limit,
        `The server already holds ${claimed} sessions, its limit (maxSessions ${maxSessions}); ${client} may retry once other sessions close, or the server can be started with a higher limit.`,
        { data: { limit: 'sessions', max: maxSessions } },
      );
    }
    claimed++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      claimed--;
    };
  };

  const server: HostServer = {
    maxSessions,
    connect(channel) {
      const connection = createConnection(channel, {
        open,
        ...(options.compileProject ? { compileProject: options.compileProject } : {}),
        closeGraceMs,
        maxLineBytes: options.maxLineBytes,
        pauseAtBytes: options.pauseAtBytes,
        maxPendingBytes: options.maxPendingBytes,
        maxSessionsPerConnection,
        maxCallsPerConnection: options.maxCallsPerConnection ?? DEFAULT_MAX_CALLS_PER_CONNECTION,
        lineBudget,
        unsent,
        claimSession,
        log: options.log,
        nextSessionId: () => `s${nextSession++}`,
        info,
        shutdown: () => void server.close(),
      });
      if (closing) {
        void connection.close();
        return connection;
      }
      connections.add(connection);
      void connection.closed.then(() => connections.delete(connection));
      return connection;
    },
    get connectionCount() {
      return connections.size;
    },
    get sessionCount() {
      let count = 0;
      for (const connection of connections) count += connection.sessionCount;
      return count;
    },
    get slotCount() {
      return claimed;
    },
    get frameBytesHeld() {
      return frameBudget.held;
    },
    claimSlot: claimSession,
    log: (message) => options.log?.(message),
    get closing() {
      return closing !== undefined;
    },
    closeGraceMs,
    open,
    onClose(listener) {
      closeListeners.add(listener);
      return () => void closeListeners.delete(listener);
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...connections].map((connection) => connection.close()));
        for (const listener of [...closeListeners]) listener();
      })();
      return closing;
    },
  };
  return server;
}
