/**
 * Node binding of worker isolation for wasm transports: spawns `node:worker_threads` workers
 * running worker-entry.ts, and {@link createNodeWasmTransport}, the Node default
 * (isolation `worker`).
 *
 * The entry is bundled once per process with esbuild (about 40 ms) into a self-contained ES
 * module, so a worker starts in tens of milliseconds without a TypeScript loader; the bundle
 * replaces `node:wasi` with a stub because the sandbox never enables WASI.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode, MepError } from '../../../protocol/errors.ts';
import { createWasmTransport, type WasmTransport, type WasmTransportOptions } from '../index.ts';
import type { SpawnWasmWorker, WasmWorkerHandle } from '../worker-runner.ts';

let bundled: Promise<URL> | undefined;

async function workerUrl(): Promise<URL> {
  bundled ??= (async () => {
    const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const entry = fileURLToPath(new URL(`./worker-entry${extension}`, import.meta.url));
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      plugins: [
        {
          name: 'no-wasi',
          setup(b) {
            b.onResolve({ filter: /^(node:)?wasi$/ }, () => ({ path: 'wasi', namespace: 'mep-no-wasi' }));
            b.onLoad({ filter: /.*/, namespace: 'mep-no-wasi' }, () => ({
              contents: 'export class WASI { constructor() { throw new Error("WASI is disabled in the MEP wasm sandbox"); } }',
            }));
          },
        },
      ],
    });
    const code = result.outputFiles[0]?.text ?? '';
    return new URL(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  })().catch((cause) => {
    bundled = undefined;
    throw new MepError(LocalErrorCode.Build, `Could not prepare the wasm worker entry (${String(cause)}): check that esbuild is installed.`, { cause });
  });
  return bundled;
}

/** Options of {@link createNodeWasmWorkerSpawner}. */
export interface NodeWorkerSpawnerOptions {
  /**
   * Keep this many started workers ready once the process has asked for a second one (a worker
   * start costs tens of milliseconds, as much as a process spawn). Spares are unref'd: they never
   * keep the process alive. Default 1.
   */
  spares?: number;
}

/**
 * A {@link SpawnWasmWorker} for Node: each call hands out a `node:worker_threads` worker, from
 * the spares when one is ready.
 *
 * @example
 * const transport = await createWasmTransport({ name, module, isolation: 'worker', spawnWorker: createNodeWasmWorkerSpawner() });
 * try { … } finally { await transport.close(); }
 */
export function createNodeWasmWorkerSpawner(options: NodeWorkerSpawnerOptions = {}): SpawnWasmWorker {
  const want = options.spares ?? 1;
  const spares: Promise<Worker>[] = [];
  let spawned = 0;
  // execArgv [] keeps the parent's loaders (tsx) out of the thread: the bundle needs none.
  const start = async (): Promise<Worker> => new Worker(await workerUrl(), { execArgv: [] });
  const drop = (spare: Promise<Worker>): void => {
    const at = spares.indexOf(spare);
    if (at >= 0) spares.splice(at, 1);
  };
  const startSpare = (): void => {
    const spare: Promise<Worker> = start().then((worker) => {
      worker.unref();
      // A spare that dies unused is dropped; the next spawn starts a fresh worker.
      worker.once('exit', () => drop(spare));
      return worker;
    });
    // A spare that cannot start is dropped too: the next spawn reports the failure itself.
    spare.catch(() => drop(spare));
    spares.push(spare);
  };
  return async (): Promise<WasmWorkerHandle> => {
    spawned++;
    const taken = spares.shift();
    if (spawned >= 2) while (spares.length < want) startSpare();
    const worker = taken ? await taken.catch(start) : await start();
    worker.removeAllListeners('exit');
    worker.ref();
    let exitListener: ((error: Error | undefined) => void) | undefined;
    let stopping = false;
    let reported = false;
    const report = (error: Error | undefined): void => {
      if (stopping || reported) return;
      reported = true;
      exitListener?.(error);
    };
    worker.on('error', (error) => report(error));
    worker.on('exit', (code) => report(code === 0 ? undefined : new Error(`worker exited with code ${code}`)));
    return {
      postMessage: (message, transfer) => worker.postMessage(message, transfer as never),
      onMessage: (listener) => void worker.on('message', listener),
      onExit: (listener) => void (exitListener = listener),
      async terminate() {
        stopping = true;
        await worker.terminate();
      },
    };
  };
}

/** The spawner shared by every Node wasm transport of this process, so spares are reused. */
let sharedSpawner: SpawnWasmWorker | undefined;

/**
 * {@link createWasmTransport} with Node's default: worker isolation with a Node spawner.
 *
 * @example
 * const transport = await createNodeWasmTransport({ name: 'avro', module: bytes });
 * try { … } finally { await transport.close(); }
 */
export function createNodeWasmTransport(
  options: Omit<WasmTransportOptions, 'isolation' | 'spawnWorker'> & { isolation?: WasmTransportOptions['isolation'] },
): Promise<WasmTransport> {
  return createWasmTransport({ ...options, isolation: options.isolation ?? 'worker', spawnWorker: (sharedSpawner ??= createNodeWasmWorkerSpawner()) });
}
