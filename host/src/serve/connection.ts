/**
 * One client of the served host: a JSON-RPC peer over the client's line stream, the handlers of
 * the served-host methods, and the sessions this client opened. When the client goes away, its
 * running calls are cancelled and every session it opened is closed, so no extension process or
 * wasm worker outlives it.
 */
import { decodeParams } from '../protocol/index.ts';
import type { ClaimSet } from '../protocol/index.ts';
import { ErrorCode, LocalErrorCode, MepError } from '../protocol/errors.ts';
import { createPeer } from '../rpc/index.ts';
import type { RequestContext } from '../rpc/index.ts';
import { createSession } from '../session/session.ts';
import type { CallOptions, Session } from '../session/session.ts';
import type { OutputLimits } from '../session/output-budget.ts';
import type { LogEntry, LogSink, Transport } from '../transport/types.ts';
import type { HeldBudget } from '../framing/held-budget.ts';
import type { UnsentBudget } from './unsent-budget.ts';
import type { ByteChannel } from './byte-channel.ts';
import { DEFAULT_SERVE_PAUSE_AT_BYTES, createLineTransport } from './line-transport.ts';
import { CallParams, OpenParams, ProjectCompileParams, ServeMethod, SessionParams, type ProjectCompileReply, type ServerInfo } from './methods.ts';
import { createServedSession, type ServedSession } from './served-session.ts';
import { toWireError } from './wire-error.ts';

/** What {@link OpenExtension} started. */
export interface OpenedExtension {
  /** The channel to the new extension instance; the session owns and closes it. */
  transport: Transport;
  /** A pinned claim set (installed extensions): the initialize result must agree with it. */
  claims?: ClaimSet;
  /** The session's default request deadline when the client sets none (the server's limits). */
  requestTimeoutMs?: number;
  /** What one generate call may write (the server's `--max-output`, `--max-output-files`). */
  outputLimits?: OutputLimits;
  /**
   * The session must not serve a second HTTP request (an installed extension served elsewhere:
   * its pinned identity is checked on each session's handshake, so each call gets one). Default false.
   */
  oneRequest?: boolean;
}

/** Starts the extension a client asked for; the served host's platform dependency. */
export type OpenExtension = (request: OpenParams, context: OpenContext) => Promise<OpenedExtension>;

/** What the server gives {@link OpenExtension} besides the request. */
export interface OpenContext {
  log: LogSink;
  /** Aborted when the client leaves mid-open. */
  signal: AbortSignal;
  /** The server's budget of unfinished frames, shared by all its sessions' process extensions. */
  frameBudget?: HeldBudget;
}

/** Compiles a project folder in a session (reads and writes files: a platform dependency too). */
export type CompileProjectFolder = (session: Session, request: ProjectCompileParams, options: CallOptions) => Promise<ProjectCompileReply>;

/** What a connection needs from its server. */
export interface ConnectionContext {
  open: OpenExtension;
  /** `project/compile`, when the server can read projects. */
  compileProject?: CompileProjectFolder;
  closeGraceMs: number;
  maxLineBytes?: number;
  /** Back-pressure bounds of the client's output; see `createLineTransport`. */
  pauseAtBytes?: number;
  maxPendingBytes?: number;
  /** Sessions (open or opening) one client may hold. */
  maxSessionsPerConnection: number;
  /** The server's budget of unfinished lines, over all its clients. */
  lineBudget?: HeldBudget;
  /** The server's bound of unread answers, over all its clients. */
  unsent?: UnsentBudget;
  /** Calls (`session/call`, `project/compile`) one client may have running at once; past it ERR_LIMIT `callsPerConnection`. */
  maxCallsPerConnection: number;
  /**
   * Claim one of the server's session slots for an opening session; throws a typed limit error
   * when all are taken. The returned function gives the slot back (idempotent).
   */
  claimSession(client: string): () => void;
  /** Receives operational messages (a dropped client). */
  log?(message: string): void;
  nextSessionId(): string;
  info(): ServerInfo;
  /** `server/shutdown` was requested (after its response was sent). */
  shutdown(): void;
}

/** One connected client; see {@link createConnection}. */
export interface ServerConnection {
  /** The channel's name. */
  readonly name: string;
  /** Sessions currently open for this client. */
  readonly sessionCount: number;
  /** Resolves once the client is gone and all its sessions are closed. */
  readonly closed: Promise<void>;
  /** Disconnect the client and close its sessions. */
  close(): Promise<void>;
}

/** Serves the served-host protocol to the client on `channel`. */
export function createConnection(channel: ByteChannel, context: ConnectionContext): ServerConnection {
  const { maxLineBytes, pauseAtBytes, maxPendingBytes, log: serverLog } = context;
  const pauseAt = pauseAtBytes ?? DEFAULT_SERVE_PAUSE_AT_BYTES;
  const lines = createLineTransport(channel, { maxLineBytes, pauseAtBytes, maxPendingBytes, log: serverLog, ...(context.lineBudget ? { lineBudget: context.lineBudget } : {}), ...(context.unsent ? { unsent: context.unsent } : {}) });
  const peer = createPeer(lines, { timeoutMs: 0 });
  const sessions = new Map<string, ServedSession>();
  const closingIds = new Set<string>();
  /** Sessions of this client that hold a slot: opening, open or closing. */
  let held = 0;
  /** Gives back the slot of an open session once it is closed. */
  const slots = new Map<string, () => void>();
  let gone = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const notify = (method: string, params: Record<string, unknown>): void => {
    if (gone) return;
    try {
      peer.notify(method, params);
    } catch {
      // The client disconnected in between: nobody is left to tell, and its sessions are closing.
    }
  };

  const closeSession = async (served: ServedSession): Promise<void> => {
    closingIds.add(served.id);
    try {
      await served.close(context.closeGraceMs);
    } finally {
      sessions.delete(served.id);
      closingIds.delete(served.id);
      slots.get(served.id)?.();
      slots.delete(served.id);
    }
  };

  const sessionFor = (sessionId: string): ServedSession => {
    const served = sessions.get(sessionId);
    if (served === undefined) {
      throw new MepError(ErrorCode.InvalidParams, `No open session '${sessionId}' on this connection: open one with session/open (sessions end when their client disconnects).`, {
        data: { sessionId },
      });
    }
    return served;
  };

  const guarded = (handler: (params: unknown, ctx: RequestContext) => Promise<unknown>) => async (params: unknown, ctx: RequestContext) => {
    try {
      return await handler(params, ctx);
    } catch (error) {
      // A client's own cancellation is reported as -32800 whatever the session made of it.
      if (ctx.signal.aborted && (ctx.signal.reason as MepError | undefined)?.code === ErrorCode.RequestCancelled) throw ctx.signal.reason;
      throw toWireError(error);
    }
  };

  // Half-close (the client shut its write side, as HTTP/1.1 and LSP clients may after their last
  // request): what it sent is answered, each call within its deadline and the output bounds as
  // ever, then its sessions are closed and the connection ends. A disconnect answers nothing.
  let answering = 0;
  let inputEnded = false;
  const endWhenAnswered = (): void => {
    // After the answer's write (the peer sends it once the handler's promise settles).
    if (inputEnded && answering === 0) setImmediate(() => void end());
  };
  lines.onInputEnd(() => {
    inputEnded = true;
    endWhenAnswered();
  });
  // A handler that answers at once stays synchronous (its answer is written before the next line
  // is read, which back-pressure relies on); one that answers later is counted until it settles.
  const handle = (method: string, handler: (params: unknown, ctx: RequestContext) => unknown): void => {
    peer.onRequest(method, (params, ctx) => {
      const answer = handler(params, ctx);
      if (!(answer instanceof Promise)) return answer;
      answering++;
      return answer.finally(() => {
        answering--;
        endWhenAnswered();
      });
    });
  };

  handle(ServeMethod.Info, () => context.info());

  handle(
    ServeMethod.Open,
    guarded(async (raw, { signal }) => {
      const params = decodeParams(OpenParams, raw, ServeMethod.Open);
      if (held >= context.maxSessionsPerConnection) {
        throw new MepError(
          LocalErrorCode.Limit,
          `${channel.name} already holds ${held} sessions, the most one connection may (maxSessionsPerConnection ${context.maxSessionsPerConnection}); session/close one before opening '${params.extension}', or open it on another connection.`,
          { data: { limit: 'sessionsPerConnection', max: context.maxSessionsPerConnection, extension: params.extension } },
        );
      }
      const release = context.claimSession(channel.name);
      held++;
      let released = false;
      const releaseSlot = (): void => {
        if (released) return;
        released = true;
        held--;
        release();
      };
      try {
        return await openSession(params, signal, releaseSlot);
      } catch (error) {
        releaseSlot();
        throw error;
      }
    }),
  );

  const openSession = async (params: OpenParams, signal: AbortSignal, releaseSlot: () => void): Promise<unknown> => {
    const sessionId = context.nextSessionId();
    // What the extension writes on its stderr comes here, outside every budget: it is read only as
    // fast as this client takes it (held while its unsent output is past pauseAtBytes), so an
    // extension flooding stderr waits on its writes instead of getting its client dropped.
    const log: LogSink = Object.assign((entry: LogEntry) => notify(ServeMethod.Log, { sessionId, level: entry.level, message: entry.message, source: 'runtime' }), {
      busy: () => !gone && channel.pendingBytes > pauseAt,
      onDrain: (listener: () => void) => {
        const dispose = channel.onDrain(() => {
          dispose();
          listener();
        });
      },
    });
    const { transport, claims, requestTimeoutMs, outputLimits } = await context.open(params, { log, signal });
    const session = createSession({ transport, claims, requestTimeoutMs: params.runtime?.requestTimeoutMs ?? requestTimeoutMs, shutdownTimeoutMs: context.closeGraceMs, ...(outputLimits ? { outputLimits } : {}) });
    const served = createServedSession(sessionId, session, transport, notify);
    slots.set(sessionId, releaseSlot);
    sessions.set(sessionId, served);
    transport.onClose((error) => {
      if (closingIds.has(sessionId) || !sessions.has(sessionId)) return;
      // The extension ended on its own (crash, limit, deadline kill): tell the client, then clean up.
      notify(ServeMethod.Closed, { sessionId, ...(error ? { error: (toWireError(error) as MepError).toJSON() } : {}) });
      void closeSession(served);
    });
    const onAbort = (): void => void closeSession(served);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (gone) throw new MepError(ErrorCode.RequestCancelled, `The client disconnected while session '${sessionId}' was opening.`);
      const initialize = await session.start();
      return { sessionId, initialize };
    } catch (error) {
      await closeSession(served);
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };

  // A client that pipelines calls without waiting would have each held until answered (its
  // params, a pending entry, a timer): past the bound, a call is refused at once.
  let running = 0;
  const counted = (handler: (params: unknown, ctx: RequestContext) => Promise<unknown>) => async (params: unknown, ctx: RequestContext) => {
    if (running >= context.maxCallsPerConnection) {
      throw new MepError(
        LocalErrorCode.Limit,
        `${channel.name} already has ${running} calls running, the most one connection may (maxCallsPerConnection ${context.maxCallsPerConnection}); wait for an answer before sending ${ctx.method} again, or use another connection.`,
        { data: { limit: 'callsPerConnection', max: context.maxCallsPerConnection } },
      );
    }
    running++;
    try {
      return await handler(params, ctx);
    } finally {
      running--;
    }
  };

  handle(
    ServeMethod.Call,
    guarded(counted(async (raw, { id, signal }) => {
      const params = decodeParams(CallParams, raw, ServeMethod.Call);
      return sessionFor(params.sessionId).call(params.method, params.params, { clientId: id, signal, timeoutMs: params.timeoutMs });
    })),
  );

  const compileProject = context.compileProject;
  if (compileProject) {
    handle(
      ServeMethod.ProjectCompile,
      guarded(counted(async (raw, { id, signal }) => {
        const params = decodeParams(ProjectCompileParams, raw, ServeMethod.ProjectCompile);
        return sessionFor(params.sessionId).run((session, options) => compileProject(session, params, options), { clientId: id, signal, timeoutMs: params.timeoutMs });
      })),
    );
  }

  handle(
    ServeMethod.Close,
    guarded(async (raw) => {
      const { sessionId } = decodeParams(SessionParams, raw, ServeMethod.Close);
      await closeSession(sessionFor(sessionId));
      return { closed: true };
    }),
  );

  peer.onRequest(ServeMethod.Shutdown, () => {
    // The response is sent as this handler returns; stopping starts right after it.
    queueMicrotask(() => context.shutdown());
    return {};
  });

  const end = async (): Promise<void> => {
    if (gone) return closed;
    gone = true;
    await peer.close();
    await Promise.allSettled([...sessions.values()].map(closeSession));
    resolveClosed();
    return closed;
  };
  // Client gone (end of input, disconnect): the peer already aborted the running handlers' signals.
  peer.onClose(() => void end());

  return {
    name: channel.name,
    get sessionCount() {
      return sessions.size;
    },
    closed,
    close: end,
  };
}
