/**
 * The pool of worker threads behind worker isolation, so opening a worker session costs a
 * message rather than a thread start and an instantiation.
 *
 * Policy:
 * - A worker is prepared for one guest (module, name, limits, grants): its thread runs and its
 *   engine is instantiated, never called. A session takes a prepared worker for its guest when
 *   there is one; else an idle worker, prepared on the spot; else a new thread.
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
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import type { WasmEngineOptions } from './engine.ts';
import { Command, createChannel, FLAG_INTERRUPT, sendCommand, type Channel } from './worker-channel.ts';
import type { FromWorker, ToWorker } from './worker-protocol.ts';
import type { SpawnWasmWorker, WasmWorkerHandle } from './worker-runner.ts';

/** The guest a worker is prepared for: its module and engine options (`entry` defaults to `handle`). */
export interface PooledGuest extends Pick<WasmEngineOptions, 'name' | 'limits' | 'grants' | 'entry'> {
  module: WebAssembly.Module;
}

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

/** What a worker's current holder hears. */
export interface WorkerListener {
  message(message: FromWorker): void;
  exit(error: Error | undefined): void;
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
  /** A worker whose fresh engine runs `guest`. Rejects with the engine's error when it cannot start. */
  acquire(guest: PooledGuest): Promise<PooledWorker>;
  /**
   * Starts a spare for `guest` ahead of its session, so its `acquire` finds the engine prepared
   * or under way. Resolves once the thread runs and its engine was asked for (the work left
   * happens on that thread); does nothing when such a spare exists or the pool has no room.
   * Never rejects: a spare that fails is dropped, and the `acquire` reports the failure.
   */
  warm(guest: PooledGuest): Promise<void>;
  /**
   * Starts a spare thread before its guest is known (e.g. while a command loads and reads its
   * input), so the next `warm` or `acquire` prepares an engine on a running thread instead of
   * waiting for one to start. Does nothing when the pool has no room; never rejects.
   */
  prestart(): Promise<void>;
  stats(): WasmWorkerPoolStats;
  /** Terminates the idle workers; held ones stop when released. */
  close(): Promise<void>;
}

interface Entry {
  handle: WasmWorkerHandle;
  channel: Channel;
  /** The guest its engine is prepared for (undefined: none), and its key. */
  guest?: PooledGuest;
  key?: string;
  /** True when its engine was never handed to a session. */
  fresh: boolean;
  /** Settles when the current preparation ends. */
  preparing?: Promise<void>;
  /** The key of the guest being prepared, while it is. */
  wanted?: string;
  /** Internal waiter for `ready`/`init-error`/`released`. */
  waiter?: (message: FromWorker) => void;
  holder?: WorkerListener;
  /** Routes a message of the worker, whether the event loop delivered it or it was taken early. */
  dispatch(message: FromWorker): void;
  /** Guest requests posted by the thread, counted as the worker counts them. */
  requests: number;
  idleTimer?: ReturnType<typeof setTimeout>;
  dead: boolean;
}

const moduleIds = new WeakMap<WebAssembly.Module, number>();
let nextModuleId = 1;
const keyOf = (guest: PooledGuest): string => {
  let id = moduleIds.get(guest.module);
  if (id === undefined) moduleIds.set(guest.module, (id = nextModuleId++));
  return JSON.stringify([id, guest.name, guest.limits, guest.grants, guest.entry ?? 'handle']);
};
/** Workers listen on the channel only where the host can await it without blocking. */
const canListen = typeof (Atomics as { waitAsync?: unknown }).waitAsync === 'function';

/** Creates a pool over `spawn`, which starts one thread running `serveWasmWorker`. */
export function createWasmWorkerPool(spawn: SpawnWasmWorker, options: WasmWorkerPoolOptions = {}): WasmWorkerPool {
  const spares = options.spares ?? 1;
  const idleMs = options.idleMs ?? 30_000;
  const listens = canListen && options.listen !== false;
  const all = new Set<Entry>();
  const idle: Entry[] = [];
  const held = new Set<Entry>();
  let started = 0;
  let closed = false;

  const unpark = (entry: Entry): void => {
    const at = idle.indexOf(entry);
    if (at >= 0) idle.splice(at, 1);
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  };
  const terminate = (entry: Entry): Promise<void> => {
    unpark(entry);
    all.delete(entry);
    held.delete(entry);
    if (entry.dead) return Promise.resolve();
    entry.dead = true;
    // A preparation in flight ends here rather than waiting for an answer that never comes.
    entry.waiter?.({ type: 'init-error', error: { code: LocalErrorCode.ExtensionCrashed, message: 'it was terminated', data: { threadStopped: true } } });
    return entry.handle.terminate();
  };
  const park = (entry: Entry): void => {
    entry.holder = undefined;
    entry.handle.unref?.();
    idle.push(entry);
    const timer = setTimeout(() => void terminate(entry), idleMs);
    (timer as { unref?: () => void }).unref?.();
    entry.idleTimer = timer;
  };
  const awaitReply = (entry: Entry, types: FromWorker['type'][]): Promise<FromWorker> =>
    new Promise((resolve) => {
      entry.waiter = (message) => {
        if (!types.includes(message.type)) return;
        entry.waiter = undefined;
        resolve(message);
      };
    });

  const start = async (): Promise<Entry> => {
    const handle = await spawn();
    started++;
    const entry: Entry = {
      handle,
      channel: createChannel(),
      dead: false,
      fresh: false,
      requests: 0,
      dispatch(message) {
        if (message.type === 'request') entry.requests++;
        if (entry.waiter !== undefined && (message.type === 'ready' || message.type === 'init-error' || message.type === 'released')) entry.waiter(message);
        else entry.holder?.message(message);
      },
    };
    all.add(entry);
    handle.onMessage(entry.dispatch);
    handle.onExit((error) => {
      entry.dead = true;
      unpark(entry);
      all.delete(entry);
      held.delete(entry);
      entry.waiter?.({ type: 'init-error', error: { code: LocalErrorCode.ExtensionCrashed, message: error?.message ?? 'it exited', data: { threadStopped: true } } });
      entry.holder?.exit(error);
    });
    return entry;
  };

  /** Gives the entry a fresh engine for `guest`: renews the same guest's, or replaces another's. */
  const prepare = (entry: Entry, guest: PooledGuest): Promise<void> => {
    const key = keyOf(guest);
    const run = async (): Promise<void> => {
      entry.fresh = false;
      entry.wanted = key;
      // The last session may have left its close signal set; the next engine starts clear.
      Atomics.store(entry.channel, FLAG_INTERRUPT, 0);
      let answer: Promise<FromWorker>;
      if (entry.key === key) {
        answer = awaitReply(entry, ['ready', 'init-error']);
        if (listens) sendCommand(entry.channel, Command.Renew);
        else entry.handle.postMessage({ type: 'renew' });
      } else {
        if (entry.key !== undefined) {
          const released = awaitReply(entry, ['released', 'init-error']);
          if (listens) sendCommand(entry.channel, Command.Leave);
          else entry.handle.postMessage({ type: 'leave' });
          await released;
        }
        entry.key = undefined;
        entry.guest = undefined;
        answer = awaitReply(entry, ['ready', 'init-error']);
        const { module, name, limits, grants } = guest;
        entry.handle.postMessage({ type: 'init', module, name, limits, grants, ...(guest.entry === undefined ? {} : { entry: guest.entry }), flags: entry.channel.buffer as SharedArrayBuffer, listen: listens });
      }
      const message = await answer;
      if (message.type === 'init-error') {
        await terminate(entry);
        const { code, message: text, data } = message.error;
        if ((data as { threadStopped?: boolean } | undefined)?.threadStopped) {
          throw new MepError(code, `The worker thread for wasm extension "${guest.name}" stopped before its engine was ready (${text}). Start a new session to retry.`, {
            data: { extension: guest.name, detail: text },
          });
        }
        throw new MepError(code, text, { data });
      }
      entry.key = key;
      entry.guest = guest;
      entry.fresh = true;
    };
    const preparing = run().finally(() => {
      if (entry.preparing !== preparing) return;
      entry.preparing = undefined;
      entry.wanted = undefined;
    });
    entry.preparing = preparing;
    return preparing;
  };

  /** Spares whose thread is still starting; they count against the bound. */
  let starting = 0;
  const room = (): boolean => idle.length + starting < spares;
  /** A thread started by `prestart`, while it starts (it is parked with no guest once it runs). */
  let bare: Promise<void> | undefined;
  /** A parked spare with no engine, prepared for nothing yet (from `prestart`). */
  const blank = (): Entry | undefined => idle.find((e) => e.key === undefined && e.wanted === undefined);

  /** Threads being started as spares, by guest key: an acquire for that guest waits for its thread. */
  const spawning = new Map<string, Promise<void>>();

  /**
   * Parks `entry` (or a new thread) as a spare and prepares it for `guest` in the background.
   * Resolves once the spare is parked and its engine asked for (not when the engine is ready).
   */
  const prepareSpare = (entry: Entry | undefined, guest: PooledGuest): Promise<void> => {
    // A spare that cannot be prepared was terminated; the next acquire starts afresh.
    const ready = (spare: Entry): void => void prepare(spare, guest).catch(() => undefined);
    if (entry !== undefined) {
      park(entry);
      ready(entry);
      return Promise.resolve();
    }
    const key = keyOf(guest);
    const parked = startSpare(ready).finally(() => {
      if (spawning.get(key) === parked) spawning.delete(key);
    });
    spawning.set(key, parked);
    return parked;
  };

  /** Starts a thread and parks it as a spare (then `then` runs), unless the pool closed meanwhile. */
  const startSpare = (then: (spare: Entry) => void): Promise<void> => {
    starting++;
    return (
      start()
        .finally(() => starting--)
        .then((spare) => {
          if (closed) return void terminate(spare);
          park(spare);
          then(spare);
        })
        // A spare that cannot start is simply missing; the next acquire reports the failure itself.
        .catch(() => undefined)
    );
  };

  // Synchronous up to the spare's start, so an acquire right after it finds the spare under way.
  const warm = (guest: PooledGuest): Promise<void> => {
    if (bare !== undefined) return bare.then(() => warm(guest));
    if (closed) return Promise.resolve();
    const key = keyOf(guest);
    const pending = spawning.get(key);
    if (pending !== undefined) return pending;
    if (idle.some((e) => e.key === key || e.wanted === key)) return Promise.resolve();
    // A bare spare stays parked and is prepared where it is: an acquire finds it by `wanted`.
    const spare = blank();
    if (spare !== undefined) {
      void prepare(spare, guest).catch(() => undefined);
      return Promise.resolve();
    }
    return room() ? prepareSpare(undefined, guest) : Promise.resolve();
  };

  const hold = (entry: Entry): PooledWorker => {
    entry.handle.ref?.();
    entry.fresh = false;
    held.add(entry);
    let released = false;
    return {
      channel: entry.channel,
      listens,
      requests: () => entry.requests,
      post: (message, transfer) => entry.handle.postMessage(message, transfer),
      receive() {
        const message = entry.handle.receiveSync?.();
        if (message === undefined) return false;
        entry.dispatch(message);
        return true;
      },
      attach: (listener) => void (entry.holder = listener),
      async release(reusable) {
        if (released) return;
        released = true;
        entry.holder = undefined;
        held.delete(entry);
        const guest = entry.guest;
        if (!reusable || closed || entry.dead || guest === undefined || !room()) return terminate(entry);
        prepareSpare(entry, guest);
      },
    };
  };

  return {
    async acquire(guest) {
      if (closed) throw new MepError(LocalErrorCode.Usage, `The wasm worker pool was closed; extension "${guest.name}" cannot start in it. Create a new pool.`);
      const key = keyOf(guest);
      // A spare warmed for this guest, or started bare, may still be starting its thread: take
      // it rather than start another.
      await spawning.get(key);
      await bare;
      let entry = idle.find((e) => e.key === key && e.fresh) ?? idle.find((e) => e.wanted === key) ?? idle.find((e) => e.key === key) ?? idle[0];
      if (entry !== undefined) {
        unpark(entry);
        // Held from now on: its preparation must keep the process alive for this session.
        entry.handle.ref?.();
      }
      // Sessions overlap: prepare the next one's worker ahead (a lone or sequential session
      // reuses its released worker instead).
      if (held.size >= 1 && room()) void prepareSpare(undefined, guest);
      if (entry === undefined) entry = await start();
      await entry.preparing?.catch(() => undefined);
      if (entry.dead) entry = await start();
      if (!entry.fresh || entry.key !== key) await prepare(entry, guest);
      return hold(entry);
    },
    warm,
    prestart() {
      if (bare !== undefined) return bare;
      if (closed || !room()) return Promise.resolve();
      const started = startSpare(() => undefined).finally(() => {
        if (bare === started) bare = undefined;
      });
      bare = started;
      return started;
    },
    stats: () => ({ threads: all.size, idle: idle.length, started }),
    async close() {
      closed = true;
      await Promise.all([...idle].map(terminate));
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
