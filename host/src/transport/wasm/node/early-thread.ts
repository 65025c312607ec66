/**
 * A wasm worker thread started before anything else of a command has loaded (cli/early-start.ts):
 * Node's boot of a thread costs about 80 ms, on the other core, and the pool (worker-pool.ts) with
 * its error and limit tables would hold it back by the time those take to load. The pool's spawner
 * (spawner.ts) takes this thread as its first; meanwhile the early compile (cli/early-compile.ts)
 * can ask it to prepare the guest's module from its file (file-module.ts).
 *
 * Light on purpose: node's worker_threads and fs, nothing of ours that loads more. Only where the
 * worker entry is prebuilt (the npm package, dist/): a checkout bundles it first (spawner.ts).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { PREBUILT_WORKER_ENTRY } from './worker-bundle.ts';

/** A started worker thread running the worker entry, and the host's port to it. */
export interface WorkerThread {
  readonly worker: Worker;
  /** The host's side of the thread's own channel (the entry serves `workerData.port`). */
  readonly port: MessagePort;
  /** Calls `listener` once the thread ended (its error, or undefined for exit code 0); at once if it already has. */
  onEnd(listener: (error: Error | undefined) => void): void;
}

/**
 * Starts a thread on the worker entry at `url`. Its end is recorded from the start, so a thread
 * that fails before anyone listens is neither an uncaught error nor unreported.
 */
export function startWorkerThread(url: URL): WorkerThread {
  // The thread's traffic goes through a port of its own rather than the worker's, so the host
  // can take a call's messages synchronously (receiveMessageOnPort) once its result is in.
  const { port1: port, port2 } = new MessageChannel();
  // execArgv [] keeps the parent's loaders (tsx) out of the thread: the bundle needs none.
  const worker = new Worker(url, { execArgv: [], workerData: { port: port2 }, transferList: [port2] });
  let ended: { error: Error | undefined } | undefined;
  const listeners: ((error: Error | undefined) => void)[] = [];
  const end = (error: Error | undefined): void => {
    if (ended !== undefined) return;
    ended = { error };
    for (const listener of listeners.splice(0)) listener(error);
  };
  worker.on('error', (error) => end(error));
  worker.on('exit', (code) => end(code === 0 ? undefined : new Error(`worker exited with code ${code}`)));
  return {
    worker,
    port,
    onEnd(listener) {
      if (ended === undefined) listeners.push(listener);
      else listener(ended.error);
    },
  };
}

/** The thread {@link startEarlyWorkerThread} started, until the spawner takes it. */
let waiting: WorkerThread | undefined;
/** The same thread, taken or not: the early compile asks it for the module. */
let early: WorkerThread | undefined;

/**
 * Starts the early thread on the prebuilt worker entry (or on `url`, a test's bundle), once per
 * process; undefined where there is no prebuilt entry (a checkout). Never throws.
 */
export function startEarlyWorkerThread(url?: URL): WorkerThread | undefined {
  if (early !== undefined) return early;
  try {
    const prebuilt = url ?? new URL(`./${PREBUILT_WORKER_ENTRY}`, import.meta.url);
    if (url === undefined && (prebuilt.protocol !== 'file:' || !existsSync(fileURLToPath(prebuilt)))) return undefined;
    early = waiting = startWorkerThread(prebuilt);
    // It keeps the process alive only once a session holds it (the pool refs it then).
    early.worker.unref();
    early.port.unref();
  } catch {
    return undefined;
  }
  return early;
}

/**
 * Makes `thread` this module's early thread, as if {@link startEarlyWorkerThread} had started it,
 * unless one was started already: for the `mep` command's code-cached bundle (cli/cached-cli.ts),
 * whose copy of this module is not the one that started the thread before the bundle loaded.
 */
export function adoptEarlyWorkerThread(thread: WorkerThread): void {
  if (early === undefined) early = waiting = thread;
}

/** The early thread, taken by the spawner already or not (undefined: none was started). */
export function earlyWorkerThread(): WorkerThread | undefined {
  return early;
}

/** The early thread for the spawner, once; undefined when none waits (never started, or taken). */
export function takeEarlyWorkerThread(): WorkerThread | undefined {
  const thread = waiting;
  waiting = undefined;
  return thread;
}
