/**
 * The Node spawner of wasm worker threads: `node:worker_threads` workers running worker-entry.ts,
 * pooled (worker-pool.ts), and the pool every Node wasm transport of this process shares.
 *
 * The entry runs as one self-contained ES module (worker-bundle.ts): prebuilt in the npm package,
 * bundled once per process in a checkout, so a worker starts in tens of milliseconds without a
 * TypeScript loader. This module stays light (no engine, no Extism SDK) so that a command can
 * start a thread ({@link prestartNodeWasmWorker}) before it loads the rest.
 */
import { existsSync } from 'node:fs';
import { receiveMessageOnPort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode, MepError } from '../../../protocol/errors.ts';
import { workerPoolOf, type SpawnWasmWorker, type WasmWorkerPoolOptions } from '../worker-pool.ts';
import type { FromWorker } from '../worker-protocol.ts';
import { startWorkerThread, takeEarlyWorkerThread } from './early-thread.ts';
import { PREBUILT_WORKER_ENTRY, workerEntryBuildOptions } from './worker-bundle.ts';

let bundled: Promise<URL> | undefined;

/** The URL of the worker entry: the prebuilt bundle, or one bundled here (a checkout). */
export async function workerUrl(): Promise<URL> {
  bundled ??= (async () => {
    // The installed package ships the bundle (npm run build); a checkout makes it here.
    const prebuilt = new URL(`./${PREBUILT_WORKER_ENTRY}`, import.meta.url);
    if (prebuilt.protocol === 'file:' && existsSync(fileURLToPath(prebuilt))) return prebuilt;
    const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const entry = fileURLToPath(new URL(`./worker-entry${extension}`, import.meta.url));
    const { build } = await import('esbuild');
    const result = await build({ ...workerEntryBuildOptions(entry), write: false });
    const code = result.outputFiles[0]?.text ?? '';
    return new URL(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  })().catch((cause) => {
    bundled = undefined;
    throw new MepError(LocalErrorCode.Build, `Could not prepare the wasm worker entry (${String(cause)}): check that esbuild is installed.`, { cause });
  });
  return bundled;
}

/** Options of {@link createNodeWasmWorkerSpawner}: the policy of its pool (worker-pool.ts). */
export type NodeWorkerSpawnerOptions = WasmWorkerPoolOptions;

/**
 * A {@link SpawnWasmWorker} for Node: starts `node:worker_threads` workers, pooled (every
 * transport given this spawner shares one pool): sessions take workers prepared ahead, idle
 * workers are unref'd and released after `idleMs`.
 *
 * @example
 * const transport = await createWasmTransport({ name, module, isolation: 'worker', spawnWorker: createNodeWasmWorkerSpawner() });
 * try { … } finally { await transport.close(); }
 */
export function createNodeWasmWorkerSpawner(options: NodeWorkerSpawnerOptions = {}): SpawnWasmWorker {
  const spawn: SpawnWasmWorker = async () => {
    // The thread the command started before it loaded (early-thread.ts), else a new one.
    const { worker, port, onEnd } = takeEarlyWorkerThread() ?? startWorkerThread(await workerUrl());
    let exitListener: ((error: Error | undefined) => void) | undefined;
    let stopping = false;
    let reported = false;
    onEnd((error) => {
      port.close();
      if (stopping || reported) return;
      reported = true;
      exitListener?.(error);
    });
    return {
      postMessage: (message, transfer) => port.postMessage(message, transfer as never),
      onMessage: (listener) => void port.on('message', listener),
      receiveSync: () => receiveMessageOnPort(port)?.message as FromWorker | undefined,
      onExit: (listener) => void (exitListener = listener),
      async terminate() {
        stopping = true;
        port.close();
        await worker.terminate();
      },
      unref() {
        worker.unref();
        port.unref();
      },
      ref() {
        worker.ref();
        port.ref();
      },
    };
  };
  workerPoolOf(spawn, options);
  return spawn;
}

/** The spawner shared by every Node wasm transport of this process, so its pool is too. */
let sharedSpawner: SpawnWasmWorker | undefined;

/** The spawner (and so the pool) {@link createNodeWasmTransport} uses by default. */
export function sharedNodeWasmSpawner(): SpawnWasmWorker {
  return (sharedSpawner ??= createNodeWasmWorkerSpawner());
}

/**
 * Starts a thread in the shared pool before any guest is known, so the wasm session a command
 * opens soon after (e.g. `mep generate --extension x.wasm`, while it loads and reads its input)
 * finds a running thread. Does nothing when the pool already has its spare; never fails.
 */
export function prestartNodeWasmWorker(): Promise<void> {
  return workerPoolOf(sharedNodeWasmSpawner()).prestart();
}

/**
 * Runs `fn` (a session's close) with the shared pool's renewals held (`holdRenewals`): a worker it
 * releases is ended rather than given a fresh engine, for a command's last session, after which
 * no session comes. Held only while `fn` runs, so nothing of it outlives the call.
 */
export async function withoutWasmRenewals<T>(fn: () => Promise<T>): Promise<T> {
  const pool = workerPoolOf(sharedNodeWasmSpawner());
  pool.holdRenewals(true);
  try {
    return await fn();
  } finally {
    pool.holdRenewals(false);
  }
}
