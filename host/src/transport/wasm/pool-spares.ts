/**
 * The worker pool's shared state (its sets of threads and bounds) and its idle side: threads
 * parked as spares — warmed ahead for a guest, prestarted before any guest is known, or kept
 * after a session — within the `spares` bound. worker-pool.ts takes threads from here.
 */
import { setLongTimeout } from '../long-timer.ts';
import { keyOf, startPoolThread, type PooledGuest, type PoolThread, type SpawnWasmWorker } from './pool-thread.ts';
import type { WarmOptions } from './worker-pool.ts';

/** The pool's sets of threads and its bounds, shared by its phases. */
export interface PoolState {
  spawn: SpawnWasmWorker;
  spares: number;
  idleMs: number;
  listens: boolean;
  all: Set<PoolThread>;
  idle: PoolThread[];
  held: Set<PoolThread>;
  started: number;
  closed: boolean;
  /** While true, a released worker is terminated rather than given a fresh engine (WasmWorkerPool.holdRenewals). */
  renewalsHeld: boolean;
  /** Spares whose thread is still starting; they count against the bound. */
  starting: number;
}

/** Forgets `thread` as idle (it is taken, or gone). */
export function unpark(state: PoolState, thread: PoolThread): void {
  const at = state.idle.indexOf(thread);
  if (at >= 0) state.idle.splice(at, 1);
  thread.idleTimer?.();
  thread.idleTimer = undefined;
}

/** Parks `thread` as idle: unref'd, terminated after `idleMs` unused. */
function park(state: PoolState, thread: PoolThread): void {
  thread.holder = undefined;
  thread.handle.unref?.();
  state.idle.push(thread);
  thread.idleTimer = setLongTimeout(() => void thread.terminate(), state.idleMs, { unref: true });
}

/** Starts a thread the pool knows of. */
export async function startThread(state: PoolState): Promise<PoolThread> {
  const thread = await startPoolThread(state.spawn, state.listens, (gone) => {
    unpark(state, gone);
    state.all.delete(gone);
    state.held.delete(gone);
  });
  state.started++;
  state.all.add(thread);
  return thread;
}

/** The spares of a pool: warmed ahead for a guest, prestarted bare, or kept after a session. */
export interface Spares {
  warm(guest: PooledGuest, options?: WarmOptions): Promise<void>;
  prestart(): Promise<void>;
  /** Parks `thread` (or a new thread) as a spare and prepares it for `guest` in the background. */
  prepareSpare(thread: PoolThread | undefined, guest: PooledGuest): Promise<void>;
  /** True when another spare fits the bound. */
  room(): boolean;
  /** Settles once threads being started as spares for `key` (and a bare one) run. */
  settled(key: string): Promise<void>;
}

export function createSpares(state: PoolState): Spares {
  const room = (): boolean => state.idle.length + state.starting < state.spares;
  /** A thread started by `prestart`, while it starts (it is parked with no guest once it runs). */
  let bare: Promise<void> | undefined;
  /** A parked spare with no engine, prepared for nothing yet (from `prestart`). */
  const blank = (): PoolThread | undefined => state.idle.find((t) => t.key === undefined && t.wanted === undefined);
  /** Threads being started as spares, by guest key: an acquire for that guest waits for its thread. */
  const spawning = new Map<string, Promise<void>>();
  // A spare that cannot be prepared was terminated; the next acquire starts afresh.
  const ready = (guest: PooledGuest) => (spare: PoolThread): void => void spare.prepare(guest, guest.limits.callTimeoutMs).catch(() => undefined);

  /** Starts a thread and parks it as a spare (then `then` runs), unless the pool closed meanwhile. */
  const startSpare = (then: (spare: PoolThread) => void): Promise<void> => {
    state.starting++;
    return (
      startThread(state)
        .finally(() => state.starting--)
        .then((spare) => {
          if (state.closed) return void spare.terminate();
          park(state, spare);
          then(spare);
        })
        // A spare that cannot start is simply missing; the next acquire reports the failure itself.
        .catch(() => undefined)
    );
  };

  const prepareSpare = (thread: PoolThread | undefined, guest: PooledGuest): Promise<void> => {
    if (thread !== undefined) {
      park(state, thread);
      ready(guest)(thread);
      return Promise.resolve();
    }
    const key = keyOf(guest);
    const parked = startSpare(ready(guest)).finally(() => {
      if (spawning.get(key) === parked) spawning.delete(key);
    });
    spawning.set(key, parked);
    return parked;
  };

  // Synchronous up to the spare's start, so an acquire right after it finds the spare under way.
  const warm = (guest: PooledGuest, options: WarmOptions = {}): Promise<void> => {
    if (bare !== undefined) return bare.then(() => warm(guest, options));
    if (state.closed) return Promise.resolve();
    if (options.onlyPrestarted) {
      // The prestarted thread if it is still parked bare; a session that took it prepares it itself.
      const spare = blank();
      if (spare !== undefined) ready(guest)(spare);
      return Promise.resolve();
    }
    const key = keyOf(guest);
    const pending = spawning.get(key);
    if (pending !== undefined) return pending;
    if (state.idle.some((t) => t.key === key || t.wanted === key)) return Promise.resolve();
    // A bare spare stays parked and is prepared where it is: an acquire finds it by `wanted`.
    const spare = blank();
    if (spare !== undefined) {
      ready(guest)(spare);
      return Promise.resolve();
    }
    return room() ? prepareSpare(undefined, guest) : Promise.resolve();
  };

  return {
    warm,
    prepareSpare,
    room,
    prestart() {
      if (bare !== undefined) return bare;
      if (state.closed || !room()) return Promise.resolve();
      const started = startSpare(() => undefined).finally(() => {
        if (bare === started) bare = undefined;
      });
      bare = started;
      return started;
    },
    async settled(key) {
      await spawning.get(key);
      await bare;
    },
  };
}

