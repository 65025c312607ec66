/**
 * One thread of the wasm worker pool (worker-pool.ts): its handle and shared channel, the guest
 * its engine is prepared for, the routing of its messages, and the two things that happen to a
 * thread whatever the pool's policy — preparing an engine (under a deadline: a guest's start
 * function is guest code and may loop) and terminating it. The types of a thread live here, so
 * the pool and the runner import them in one direction.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import type { SerializedError, WasmEngineOptions } from './engine.ts';
import { setLongTimeout, type CancelTimer } from '../long-timer.ts';
import { startTimeoutError } from './start-deadline.ts';
import { acknowledgeFlow, Command, createChannel, FLAG_INTERRUPT, flowSize, sendCommand, type Channel } from './worker-channel.ts';
import type { FromWorker, ToWorker } from './worker-protocol.ts';

/** The host's handle on one worker thread running `serveWasmWorker`. */
export interface WasmWorkerHandle {
  postMessage(message: ToWorker, transfer?: Transferable[]): void;
  onMessage(listener: (message: FromWorker) => void): void;
  /**
   * Takes the next message the worker posted without waiting for the event loop to deliver it,
   * if there is one (it is then not delivered to the `onMessage` listener); optional.
   */
  receiveSync?(): FromWorker | undefined;
  /** Called once when the worker stops on its own (crash, exit), not after `terminate()`. */
  onExit(listener: (error: Error | undefined) => void): void;
  /** Kills the thread, even in the middle of wasm code. */
  terminate(): Promise<void>;
  /** Lets the process exit while this (idle) worker runs; optional. */
  unref?(): void;
  /** Undoes {@link unref} while a session holds the worker; optional. */
  ref?(): void;
}

/** Starts a worker thread running `serveWasmWorker` (see `createNodeWasmWorkerSpawner`). */
export type SpawnWasmWorker = () => Promise<WasmWorkerHandle>;

/** The guest a worker is prepared for: its module and engine options (`entry` defaults to `handle`). */
export interface PooledGuest extends Pick<WasmEngineOptions, 'name' | 'limits' | 'grants' | 'entry'> {
  module: WebAssembly.Module;
}

/** What a worker's current holder hears. */
export interface WorkerListener {
  /** Routes `message`; a promise when it is delivered later (parsed in slices, or queued behind one). */
  message(message: FromWorker): void | Promise<void>;
  exit(error: Error | undefined): void;
}

/** One pooled thread. The pool reads and sets its bookkeeping fields. */
export interface PoolThread {
  readonly handle: WasmWorkerHandle;
  readonly channel: Channel;
  /** The guest its engine is prepared for (undefined: none), and its key. */
  guest?: PooledGuest;
  key?: string;
  /** True when its engine was never handed to a session. */
  fresh: boolean;
  /** Settles when the current preparation ends. */
  preparing?: Promise<void>;
  /** The key of the guest being prepared, while it is. */
  wanted?: string;
  holder?: WorkerListener;
  /** Guest requests posted by the thread, counted as the worker counts them. */
  requests: number;
  idleTimer?: CancelTimer;
  dead: boolean;
  /** Routes a message of the worker, whether the event loop delivered it or it was taken early. */
  dispatch(message: FromWorker): void;
  /**
   * Holds the worker back (true): messages are still routed, but not acknowledged, so it posts
   * at most one flow window more and then waits; false acknowledges what was held back.
   */
  holdFlow(held: boolean): void;
  /** Gives the thread a fresh engine for `guest` within `timeoutMs`, or terminates it and rejects. */
  prepare(guest: PooledGuest, timeoutMs: number): Promise<void>;
  /** Kills the thread; a preparation in flight fails with `reason` (default: it was terminated). */
  terminate(reason?: MepError): Promise<void>;
}

const moduleIds = new WeakMap<WebAssembly.Module, number>();
let nextModuleId = 1;

/** The identity of a guest: the same module, name, limits and grants share prepared engines. */
export function keyOf(guest: PooledGuest): string {
  let id = moduleIds.get(guest.module);
  if (id === undefined) moduleIds.set(guest.module, (id = nextModuleId++));
  return JSON.stringify([id, guest.name, guest.limits, guest.grants, guest.entry ?? 'handle']);
}

const serializeError = (error: MepError): SerializedError => ({ code: error.code, message: error.message, data: error.data });
const TERMINATED: SerializedError = { code: LocalErrorCode.ExtensionCrashed, message: 'it was terminated', data: { threadStopped: true } };

/**
 * Starts a thread with `spawn`. `listens` says whether it serves calls from the channel;
 * `gone` runs once when the thread ends (terminated or exited), so the pool forgets it.
 */
export async function startPoolThread(spawn: SpawnWasmWorker, listens: boolean, gone: (thread: PoolThread) => void): Promise<PoolThread> {
  const handle = await spawn();
  /** Internal waiter for `ready`/`init-error`/`released`. */
  let waiter: ((message: FromWorker) => void) | undefined;
  /** Arms the deadline of the preparation in flight once the worker says it creates the engine. */
  let onStarting: (() => void) | undefined;
  const awaitReply = (types: FromWorker['type'][]): Promise<FromWorker> =>
    new Promise((resolve) => {
      waiter = (message) => {
        if (!types.includes(message.type)) return;
        waiter = undefined;
        resolve(message);
      };
    });

  /** While held back: the acknowledgements owed, given at once when it is let go. */
  let owed: { bytes: number; count: number } | undefined;
  const thread: PoolThread = {
    handle,
    channel: createChannel(),
    dead: false,
    fresh: false,
    requests: 0,
    dispatch(message) {
      if (message.type === 'starting') return void onStarting?.();
      if (message.type === 'request') thread.requests++;
      if (waiter !== undefined && (message.type === 'ready' || message.type === 'init-error' || message.type === 'released')) waiter(message);
      else thread.holder?.message(message);
      // Acknowledged once handled, holder or not: the worker posts the next only within its window.
      const size = flowSize(message);
      if (size < 0) return;
      if (owed === undefined) acknowledgeFlow(thread.channel, size);
      else {
        owed.bytes = (owed.bytes + size) | 0;
        owed.count++;
      }
    },
    holdFlow(held) {
      if (held) {
        owed ??= { bytes: 0, count: 0 };
        return;
      }
      const release = owed;
      owed = undefined;
      if (release !== undefined && release.count > 0) acknowledgeFlow(thread.channel, release.bytes, release.count);
    },
    prepare(guest, timeoutMs) {
      const whenStarting = (arm: (() => void) | undefined): void => void (onStarting = arm);
      const preparing = prepareEngine(thread, guest, timeoutMs, awaitReply, listens, whenStarting).finally(() => {
        onStarting = undefined;
        if (thread.preparing !== preparing) return;
        thread.preparing = undefined;
        thread.wanted = undefined;
      });
      thread.preparing = preparing;
      return preparing;
    },
    terminate(reason) {
      if (thread.dead) return Promise.resolve();
      thread.dead = true;
      gone(thread);
      // A preparation in flight ends here rather than waiting for an answer that never comes.
      waiter?.({ type: 'init-error', error: reason === undefined ? TERMINATED : serializeError(reason) });
      return handle.terminate();
    },
  };
  handle.onMessage(thread.dispatch);
  handle.onExit((error) => {
    thread.dead = true;
    gone(thread);
    waiter?.({ type: 'init-error', error: { code: LocalErrorCode.ExtensionCrashed, message: error?.message ?? 'it exited', data: { threadStopped: true } } });
    thread.holder?.exit(error);
  });
  return thread;
}

/**
 * Renews the same guest's engine, or replaces another's; terminates the thread when the engine
 * is not ready `timeoutMs` after the worker began creating it (its start function runs then; a
 * thread still booting under load is the host's time, not the guest's).
 */
async function prepareEngine(
  thread: PoolThread,
  guest: PooledGuest,
  timeoutMs: number,
  awaitReply: (types: FromWorker['type'][]) => Promise<FromWorker>,
  listens: boolean,
  whenStarting: (arm: (() => void) | undefined) => void,
): Promise<void> {
  const key = keyOf(guest);
  thread.fresh = false;
  thread.wanted = key;
  let cancelTimer: CancelTimer | undefined;
  whenStarting(() => {
    // Unref'd: a held worker keeps the process alive by itself (and so this timer running), a
    // parked spare must not (a one-shot command's released worker renewing its engine would hold
    // the exit back until the engine is ready: 0.1 s of `mep compile` with the Elm frontend).
    cancelTimer ??= setLongTimeout(() => void thread.terminate(startTimeoutError(guest.name, timeoutMs)), timeoutMs, { unref: true });
  });
  try {
    // The last session may have left its close signal set; the next engine starts clear.
    Atomics.store(thread.channel, FLAG_INTERRUPT, 0);
    let answer: Promise<FromWorker>;
    if (thread.key === key) {
      answer = awaitReply(['ready', 'init-error']);
      if (listens) sendCommand(thread.channel, Command.Renew);
      else thread.handle.postMessage({ type: 'renew' });
    } else {
      if (thread.key !== undefined) {
        const released = awaitReply(['released', 'init-error']);
        if (listens) sendCommand(thread.channel, Command.Leave);
        else thread.handle.postMessage({ type: 'leave' });
        const left = await released;
        if (left.type === 'init-error') throw threadError(thread, guest, left.error);
      }
      thread.key = undefined;
      thread.guest = undefined;
      answer = awaitReply(['ready', 'init-error']);
      const { module, name, limits, grants } = guest;
      thread.handle.postMessage({ type: 'init', module, name, limits, grants, ...(guest.entry === undefined ? {} : { entry: guest.entry }), flags: thread.channel.buffer as SharedArrayBuffer, listen: listens });
    }
    const message = await answer;
    if (message.type === 'init-error') throw threadError(thread, guest, message.error);
    thread.key = key;
    thread.guest = guest;
    thread.fresh = true;
  } finally {
    cancelTimer?.();
  }
}

/** The typed error of a failed preparation; the thread is terminated (it is of no further use). */
function threadError(thread: PoolThread, guest: PooledGuest, error: SerializedError): MepError {
  void thread.terminate();
  const { code, message, data } = error;
  if ((data as { threadStopped?: boolean } | undefined)?.threadStopped) {
    return new MepError(code, `The worker thread for wasm extension "${guest.name}" stopped before its engine was ready (${message}). Start a new session to retry.`, {
      data: { extension: guest.name, detail: message },
    });
  }
  return new MepError(code, message, { data });
}
