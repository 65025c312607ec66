/**
 * The pool of worker threads behind worker isolation, so opening a worker session costs a
 * message rather than a thread start and an instantiation. A thread itself (its messages,
 * preparing an engine, terminating it) is pool-thread.ts, the idle side (spares) pool-spares.ts;
 * this file assembles the pool and hands threads to sessions.
 *
 * Policy:
 * - A worker is prepared for one guest (module, name, limits, grants): its thread runs and its
 *   engine is instantiated, never called. A session takes a prepared worker for its guest when
 *   there is one; else an idle worker, prepared on the spot; else a new thread.
 * - Every preparation runs under the guest's call deadline: a start function that loops gets its
 *   thread killed. An `acquire` can be aborted (its client left), which kills the thread too.
 * - When sessions overlap (another one holds a worker), a spare is prepared ahead for the guest
 *   just taken, so the next one starts at once.
 * - A session that closes while its guest is idle gives the thread back: its engine is dropped
 *   and a fresh one instantiated for the same guest (no state crosses sessions). A guest killed at
 *   its deadline, crashed or closed mid-call is terminated; the pool replaces it lazily.
 * - At most `spares` workers sit idle (default 1); more are terminated on release. An idle
 *   worker is terminated after `idleMs` (default 30 s) unused. Idle workers are unref'd: they
 *   never keep the process alive.
 * - Workers take calls through shared memory where the host has `Atomics.waitAsync` (`listen`),
 *   else by messages; preparing, renewing and reuse work the same either way.
 */
import { isMepError, LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { keyOf, type PooledGuest, type PoolThread, type SpawnWasmWorker, type WorkerListener } from './pool-thread.ts';
import { createSpares, startThread, unpark, type PoolState, type Spares } from './pool-spares.ts';
import { createStartDeadline, type StartDeadline } from './start-deadline.ts';
import type { Channel } from './worker-channel.ts';
import type { ToWorker } from './worker-protocol.ts';

export type { PooledGuest, SpawnWasmWorker, WasmWorkerHandle, WorkerListener } from './pool-thread.ts';

/** Options of {@link createWasmWorkerPool}. */
export interface WasmWorkerPoolOptions {
  /** Most workers kept idle (prepared) at once. Default 1; 0 disables reuse. */
  spares?: number;
  /** An idle worker unused for this long is terminated, in ms. Default 30,000. */
  idleMs?: number;
  /**
   * Calls through shared memory (workers listen on the channel). Default: wherever the host has
   * `Atomics.waitAsync`; false posts every call and answer as a message.
   */
  listen?: boolean;
}

/** Options of one {@link WasmWorkerPool.acquire}. */
export interface AcquireOptions {
  /** Stops the acquire (and the thread it was preparing) when aborted. */
  signal?: AbortSignal;
}

/** Options of one {@link WasmWorkerPool.warm}. */
export interface WarmOptions {
  /**
   * Prepare only the thread {@link WasmWorkerPool.prestart} started, if it is still parked bare
   * (no guest prepared on it, no session took it); never start a thread. For a warm that may land
   * after its session already took that thread: a plain warm would then start a second thread and
   * instantiate the guest again, for no session.
   */
  onlyPrestarted?: boolean;
}

/** A worker with an engine prepared for one guest, held by one session. */
export interface PooledWorker {
  readonly channel: Channel;
  /** True when the worker listens on the channel (the host can await results there). */
  readonly listens: boolean;
  /** Guest requests this thread has posted so far, across its engines (a reply names its request by this count). */
  requests(): number;
  post(message: ToWorker, transfer?: Transferable[]): void;
  /** Delivers the next message the worker posted now, if the platform can take it early; false when none was. */
  receive(): boolean;
  /** Routes the worker's messages and its exit to the holder. */
  attach(listener: WorkerListener): void;
  /** Holds the worker back while the host's receiver is behind (see {@link PoolThread.holdFlow}). */
  holdFlow(held: boolean): void;
  /** Gives the worker back: kept for a later session when `reusable` and there is room, else terminated. */
  release(reusable: boolean): Promise<void>;
}

/** Counts for tests and diagnostics. */
export interface WasmWorkerPoolStats {
  /** Threads alive (held, idle or being prepared). */
  threads: number;
  /** Idle threads, prepared or being prepared. */
  idle: number;
  /** Threads started so far. */
  started: number;
}

/** A pool of wasm worker threads. */
export interface WasmWorkerPool {
  /**
   * A worker whose fresh engine runs `guest`. Rejects with the engine's error when it cannot
   * start, ERR_TIMEOUT when the engine was not ready within the guest's call deadline (counted
   * from when a running thread was asked for it: a thread's own start is the host's time, not
   * the guest's), or the abort error (the signal's MepError, else -32800) when aborted; the
   * thread it was preparing is terminated then.
   */
  acquire(guest: PooledGuest, options?: AcquireOptions): Promise<PooledWorker>;
  /**
   * Starts a spare for `guest` ahead of its session, so its `acquire` finds the engine prepared
   * or under way. Resolves once the thread runs and its engine was asked for (the work left
   * happens on that thread); does nothing when such a spare exists or the pool has no room.
   * Never rejects: a spare that fails is dropped, and the `acquire` reports the failure.
   */
  warm(guest: PooledGuest, options?: WarmOptions): Promise<void>;
  /**
   * Starts a spare thread before its guest is known (e.g. while a command loads and reads its
   * input), so the next `warm` or `acquire` prepares an engine on a running thread instead of
   * waiting for one to start. Does nothing when the pool has no room; never rejects.
   */
  prestart(): Promise<void>;
  stats(): WasmWorkerPoolStats;
  /**
   * While `held`, a released worker is terminated instead of being given a fresh engine for a
   * next session (a command's last session: instantiating the guest again would cost a whole
   * instantiation, 7 MB of snapshot for the Elm frontend, while the command exits). The pool stays
   * open; a later session starts a thread.
   */
  holdRenewals(held: boolean): void;
  /** Terminates the idle workers; held ones stop when released. */
  close(): Promise<void>;
}

/** Workers listen on the channel only where the host can await it without blocking. */
const canListen = typeof (Atomics as { waitAsync?: unknown }).waitAsync === 'function';

/** Creates a pool over `spawn`, which starts one thread running `serveWasmWorker`. */
export function createWasmWorkerPool(spawn: SpawnWasmWorker, options: WasmWorkerPoolOptions = {}): WasmWorkerPool {
  const state: PoolState = {
    spawn,
    spares: options.spares ?? 1,
    idleMs: options.idleMs ?? 30_000,
    listens: canListen && options.listen !== false,
    all: new Set(),
    idle: [],
    held: new Set(),
    started: 0,
    closed: false,
    renewalsHeld: false,
    starting: 0,
  };
  const spares = createSpares(state);
  return {
    acquire: (guest, acquireOptions) => acquire(state, spares, guest, acquireOptions),
    warm: spares.warm,
    prestart: spares.prestart,
    stats: () => ({ threads: state.all.size, idle: state.idle.length, started: state.started }),
    holdRenewals: (held) => void (state.renewalsHeld = held),
    async close() {
      state.closed = true;
      await Promise.all([...state.idle].map((thread) => thread.terminate()));
    },
  };
}

/** Takes (or starts) a thread for `guest` and prepares it, all within the acquire's deadline. */
async function acquire(state: PoolState, spares: Spares, guest: PooledGuest, options: AcquireOptions = {}): Promise<PooledWorker> {
  if (state.closed) throw new MepError(LocalErrorCode.Usage, `The wasm worker pool was closed; extension "${guest.name}" cannot start in it. Create a new pool.`);
  // No timer of its own: each preparation it waits for has the guest's deadline.
  const deadline = createStartDeadline(guest.name, undefined, options.signal);
  /** The thread this acquire works on; terminated if the signal aborts. */
  let thread: PoolThread | undefined;
  deadline.onStop((error) => void thread?.terminate(error));
  try {
    const key = keyOf(guest);
    // A spare warmed for this guest, or started bare, may still be starting its thread: take
    // it rather than start another.
    await deadline.race(spares.settled(key));
    thread = state.idle.find((t) => t.key === key && t.fresh) ?? state.idle.find((t) => t.wanted === key) ?? state.idle.find((t) => t.key === key) ?? state.idle[0];
    if (thread !== undefined && (thread.wanted ?? thread.key ?? key) !== key) {
      // A thread that ran another guest is not re-prepared: its isolate would keep that guest's
      // module and dropped memories until it collects them (mep serve over many modules grew by
      // 125 MB before it did). A new thread starts; the old one ends with everything it held.
      unpark(state, thread);
      void thread.terminate();
      thread = undefined;
    }
    if (thread !== undefined) {
      unpark(state, thread);
      // Held from now on: its preparation must keep the process alive for this session.
      thread.handle.ref?.();
    }
    // Sessions overlap: prepare the next one's worker ahead (a lone or sequential session
    // reuses its released worker instead).
    if (state.held.size >= 1 && spares.room()) void spares.prepareSpare(undefined, guest);
    thread ??= await startFor(state, deadline);
    const forThisGuest = thread.wanted === key;
    const failed = await deadline.race(thread.preparing?.then(() => undefined, (error: unknown) => error) ?? Promise.resolve(undefined));
    // A spare warmed for this guest that did not start within the deadline spent it already.
    if (thread.dead && forThisGuest && isMepError(failed) && failed.code === LocalErrorCode.Timeout) throw failed;
    if (thread.dead) thread = await startFor(state, deadline);
    if (!thread.fresh || thread.key !== key) await deadline.race(thread.prepare(guest, guest.limits.callTimeoutMs));
    return hold(state, spares, thread);
  } finally {
    deadline.dispose();
  }
}

/** A new thread for an acquire; one that arrives after the acquire was stopped is terminated. */
async function startFor(state: PoolState, deadline: StartDeadline): Promise<PoolThread> {
  const starting = startThread(state);
  starting.then(
    (thread) => {
      if (deadline.error !== undefined) void thread.terminate(deadline.error);
    },
    // The acquire reports a thread that could not start.
    () => undefined,
  );
  return deadline.race(starting);
}

/** Hands `thread` to a session. */
function hold(state: PoolState, spares: Spares, thread: PoolThread): PooledWorker {
  thread.handle.ref?.();
  thread.fresh = false;
  state.held.add(thread);
  let released = false;
  return {
    channel: thread.channel,
    listens: state.listens,
    requests: () => thread.requests,
    post: (message, transfer) => thread.handle.postMessage(message, transfer),
    receive() {
      const message = thread.handle.receiveSync?.();
      if (message === undefined) return false;
      thread.dispatch(message);
      return true;
    },
    attach: (listener) => void (thread.holder = listener),
    holdFlow(held) {
      if (!released) thread.holdFlow(held);
    },
    async release(reusable) {
      if (released) return;
      released = true;
      thread.holder = undefined;
      // The next session on this thread starts with an open window.
      thread.holdFlow(false);
      state.held.delete(thread);
      const guest = thread.guest;
      if (!reusable || state.closed || state.renewalsHeld || thread.dead || guest === undefined || !spares.room()) return thread.terminate();
      void spares.prepareSpare(thread, guest);
    },
  };
}

const pools = new WeakMap<SpawnWasmWorker, WasmWorkerPool>();

/**
 * The pool of `spawn`, created on first use (with `options`, if given then): every transport
 * using the same spawner shares one pool.
 */
export function workerPoolOf(spawn: SpawnWasmWorker, options?: WasmWorkerPoolOptions): WasmWorkerPool {
  let pool = pools.get(spawn);
  if (pool === undefined) pools.set(spawn, (pool = createWasmWorkerPool(spawn, options)));
  return pool;
}
