/**
 * The sessions behind the HTTP binding. An HTTP client sends no session id (the reference host's
 * `HttpChannel` treats every POST alone), so the server holds the MEP sessions itself: each
 * request borrows one started session of its extension for the length of the call, alone, and
 * gives it back. The extension still sees MEP's lifecycle in order (initialize, initialized,
 * operations, shutdown, exit) whatever the HTTP clients send; `fresh` runs every request in a
 * session of its own, closed right after it, as the pool always does for a session its opener
 * marks `oneRequest` (an installed remote, whose pinned identity each handshake checks).
 */
import type { InitializeResult } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { createSession } from '../session/session.ts';
import { longDelay } from '../transport/long-timer.ts';
import type { LogEntry, LogSink } from '../transport/types.ts';
import type { HostServer } from './host-server.ts';
import type { OpenParams } from './methods.ts';
import { createServedSession, type Notify, type ServedSession } from './served-session.ts';

/** Where a borrowed session's notifications go while a request holds it. */
export type SessionListener = Notify & {
  /** The client holds what it was sent unread past its bound: the extension's stderr is not read meanwhile. */
  busy?(): boolean;
  /** Calls `listener` once when the client took what it held (or went away). */
  onDrain?(listener: () => void): void;
};

/** A session lent to one request; see {@link SessionPool.acquire}. */
export interface PooledSession {
  readonly served: ServedSession;
  /** The extension's initialize result (the handshake the pool ran). */
  readonly initialize: InitializeResult;
  /** Give the session back: kept for the next request when it is healthy, closed otherwise. */
  release(): void;
}

/** Options of {@link createSessionPool}. */
export interface SessionPoolOptions {
  /** The served host whose opener, slots (`maxSessions`) and grace period the pool uses. */
  server: HostServer;
  /** A session per request, closed after it (no state survives between requests). Default false. */
  fresh?: boolean;
  /** Started sessions kept idle per extension. Default 4. */
  maxIdle?: number;
  /**
   * Sessions one client (what `acquire` names it by: the binding's remote address) may hold at
   * once, from its request's acquire until the session is kept idle again or closed. Default a
   * quarter of the server's `maxSessions` (rounded up); at `maxSessions` or more, no share.
   */
  maxPerClient?: number;
  /** Runtime options of every session the pool opens (limits, deadline). */
  runtime?: OpenParams['runtime'];
}

/** Started MEP sessions per extension reference; see {@link createSessionPool}. */
export interface SessionPool {
  /**
   * Borrow a started session of `extension`; `listener` gets its notifications until release.
   * With `client`, past that client's share throws MepError(ERR_LIMIT `sessionsPerClient`).
   */
  acquire(extension: string, listener: SessionListener, signal: AbortSignal, client?: string): Promise<PooledSession>;
  /** Sessions held (idle or lent). */
  readonly size: number;
  /** Close every session, idle or lent; later acquires fail. */
  close(): Promise<void>;
}

interface Entry {
  /** The extension reference it was opened for: its idle list. */
  key: string;
  served: ServedSession;
  initialize: InitializeResult;
  listener: SessionListener | undefined;
  /** The slot of the server this session holds. */
  releaseSlot: () => void;
  dead: boolean;
  /** Retired after its request, never kept idle (the opener said so: an installed remote). */
  oneRequest: boolean;
  /** Reading its stderr may go on: a request took it, or it is retired. */
  wake: () => void;
}

/** Create the pool of {@link SessionPoolOptions.server}. */
export function createSessionPool(options: SessionPoolOptions): SessionPool {
  const { server } = options;
  const maxIdle = options.fresh ? 0 : (options.maxIdle ?? 4);
  const idle = new Map<string, Entry[]>();
  const all = new Set<Entry>();
  let nextId = 1;
  let closed = false;
  const shares = createClientShares(options.maxPerClient ?? Math.ceil(server.maxSessions / 4), server.maxSessions);

  /** Sessions shutting down: `close()` waits for them too, so nothing outlives the pool. */
  const retiring = new Set<Promise<void>>();
  const retire = (entry: Entry): Promise<void> => {
    entry.dead = true;
    entry.wake();
    all.delete(entry);
    const done = entry.served.close(server.closeGraceMs).finally(() => {
      entry.releaseSlot();
      retiring.delete(done);
    });
    retiring.add(done);
    return done;
  };

  const open = async (extension: string, signal: AbortSignal): Promise<Entry> => {
    const releaseSlot = server.claimSlot(`an HTTP client of ${extension}`);
    const id = `h${nextId++}`;
    const holder: { entry?: Entry } = {};
    const notify: Notify = (method, params) => holder.entry?.listener?.(method, params);
    // A process extension's stderr comes here. While the session waits idle in the pool nobody
    // takes its log, so its stderr is not read (the extension waits on its writes, as under a
    // terminal nobody reads) until a request borrows it and takes what waited; before, it was
    // read as fast as it came and dropped, for as long as the session idled.
    const drained = new Set<() => void>();
    const log: LogSink = Object.assign((entry: LogEntry) => notify('session/log', { sessionId: id, level: entry.level, message: entry.message, source: 'runtime' }), {
      // Lent, it is read as fast as the request's client takes it (an SSE stream's unsent events).
      busy: () => holder.entry !== undefined && !holder.entry.dead && (holder.entry.listener === undefined || holder.entry.listener.busy?.() === true),
      onDrain: (listener: () => void) => {
        drained.add(listener);
        holder.entry?.listener?.onDrain?.(wake);
      },
    });
    const wake = (): void => {
      const listeners = [...drained];
      drained.clear();
      for (const listener of listeners) listener();
    };
    let opened;
    try {
      opened = await server.open({ extension, ...(options.runtime ? { runtime: options.runtime } : {}) }, { log, signal });
    } catch (error) {
      releaseSlot();
      throw error;
    }
    const { transport, claims, requestTimeoutMs, outputLimits, oneRequest = false } = opened;
    const session = createSession({ transport, claims, requestTimeoutMs: options.runtime?.requestTimeoutMs ?? requestTimeoutMs, shutdownTimeoutMs: server.closeGraceMs, ...(outputLimits ? { outputLimits } : {}) });
    const served = createServedSession(id, session, transport, notify);
    const entry: Entry = { key: extension, served, initialize: undefined as unknown as InitializeResult, listener: undefined, releaseSlot, dead: false, oneRequest, wake };
    holder.entry = entry;
    all.add(entry);
    // The extension ended on its own (crash, memory limit, deadline kill): never lend it again.
    transport.onClose(() => {
      if (!entry.dead) void retire(entry);
    });
    try {
      entry.initialize = await session.start();
      return entry;
    } catch (error) {
      await retire(entry);
      throw error;
    }
  };

  /** `unshare` once the session is idle again or closed: a client's share covers a session its given-up calls still hold. */
  const lend = (entry: Entry, listener: SessionListener, unshare: () => void): PooledSession => {
    entry.listener = listener;
    entry.wake();
    let released = false;
    return {
      served: entry.served,
      initialize: entry.initialize,
      release() {
        if (released) return;
        released = true;
        entry.listener = undefined;
        const peer = entry.served.session.peer;
        if (peer.abandoned === 0) return void keep(entry).finally(unshare);
        // A call its client gave up on (closed the stream, passed the deadline) may still run in
        // the extension: MEP's cancellation is cooperative. Lent meanwhile, the next client got
        // that call's logs and progress (under the server's own id) and waited behind it. The
        // session goes back to the pool only once every such call answered, within the grace
        // period; an extension still busy then is ended.
        const grace = longDelay(server.closeGraceMs, () => false);
        void Promise.race([peer.abandonedAnswered().then(() => true), grace.promise]).then((answered) => {
          grace.cancel();
          const freed = answered ? keep(entry) : entry.dead ? Promise.resolve() : retire(entry);
          void freed.finally(unshare);
        });
      },
    };
  };

  /** Keep a released session idle for the next request, when it may serve one; else end it. Resolves once it is idle or closed. */
  const keep = (entry: Entry): Promise<void> => {
    const list = idle.get(entry.key) ?? [];
    if (closed || entry.dead || entry.oneRequest || entry.served.session.state !== 'ready' || list.length >= maxIdle) {
      return entry.dead ? Promise.resolve() : retire(entry);
    }
    list.push(entry);
    idle.set(entry.key, list);
    return Promise.resolve();
  };

  return {
    async acquire(extension, listener, signal, client) {
      if (closed) throw new MepError(LocalErrorCode.SessionState, `The server is stopping: it takes no more calls of ${extension}. Retry on another replica.`);
      const unshare = shares.take(client, extension);
      try {
        const list = idle.get(extension);
        while (list && list.length > 0) {
          const entry = list.pop() as Entry;
          if (!entry.dead && entry.served.session.state === 'ready') return lend(entry, listener, unshare);
        }
        const entry = await open(extension, signal);
        if (closed) {
          await retire(entry);
          throw new MepError(LocalErrorCode.SessionState, `The server is stopping: it takes no more calls of ${extension}. Retry on another replica.`);
        }
        return lend(entry, listener, unshare);
      } catch (error) {
        unshare();
        throw error;
      }
    },
    get size() {
      return all.size;
    },
    async close() {
      closed = true;
      idle.clear();
      await Promise.allSettled([...[...all].map(retire), ...retiring]);
    },
  };
}

/**
 * Sessions held per client, at most `share` each (none counted when `share` is `maxSessions` or
 * more: one client may then hold them all, as before the share). `take` throws MepError(ERR_LIMIT
 * `sessionsPerClient`) past it, else returns the idempotent give-back.
 */
function createClientShares(share: number, maxSessions: number): { take(client: string | undefined, extension: string): () => void } {
  const held = new Map<string, number>();
  return {
    take(client, extension) {
      if (client === undefined || share >= maxSessions) return () => undefined;
      const count = held.get(client) ?? 0;
      if (count >= share) {
        throw new MepError(
          LocalErrorCode.Limit,
          `The HTTP client at ${client} already holds ${count} sessions, its share of the server's ${maxSessions} (maxSessionsPerClient ${share}, --max-sessions-per-client); its call of ${extension} may be retried once one of its calls answered, or the server can be started with a larger share.`,
          { data: { limit: 'sessionsPerClient', max: share, client } },
        );
      }
      held.set(client, count + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        const left = (held.get(client) ?? 1) - 1;
        if (left === 0) held.delete(client);
        else held.set(client, left);
      };
    },
  };
}
