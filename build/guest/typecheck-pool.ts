/**
 * The type check off the build's thread: {@link checkInWorker} runs typecheck.ts in one worker
 * thread per process, so that the check (TypeScript's load and its checker, most of a cold
 * build) runs on a core of its own while esbuild bundles and the engine snapshots the guest. The
 * worker lives as long as the process (unref'd while idle, so it never keeps one alive), and the
 * programs it keeps make a watch's rebuilds check only what changed. A recorded clean check is
 * trusted here without starting the worker at all. When no worker can start, the check runs in
 * this thread.
 */
import { Worker } from 'node:worker_threads';
import { LocalErrorCode, MepError, type MepErrorCode } from '../../host/src/protocol/errors.ts';
import type { Diagnostic } from './diagnostics.ts';
import { checkedClean, typecheckGuest, type TypecheckOptions } from './typecheck.ts';
import type { CheckRequest, CheckResponse } from './typecheck-worker.ts';

const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const WORKER_URL = new URL(`./typecheck-worker${EXT}`, import.meta.url);

interface Pending {
  resolve(problems: Diagnostic[]): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

/** Starts the worker; a checkout's TypeScript sources go through tsx there as in this thread. */
function startWorker(): Worker {
  if (EXT === '.ts') {
    const tsx = import.meta.resolve('tsx/esm/api');
    const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
    return new Worker(code, { eval: true, execArgv: [] });
  }
  return new Worker(WORKER_URL, { execArgv: [] });
}

function failAll(error: Error): void {
  for (const p of pending.values()) p.reject(error);
  pending.clear();
  worker = undefined;
}

function theWorker(): Worker {
  if (worker) return worker;
  const w = startWorker();
  w.on('message', (response: CheckResponse) => {
    const p = pending.get(response.id);
    if (!p) return;
    pending.delete(response.id);
    if (pending.size === 0) w.unref();
    if ('problems' in response) p.resolve(response.problems);
    else p.reject(new MepError((response.error.code as MepErrorCode | undefined) ?? LocalErrorCode.Build, response.error.message));
  });
  w.on('error', (error) => failAll(error));
  w.on('exit', (code) => failAll(new Error(`the type-check worker exited (${code})`)));
  w.unref();
  worker = w;
  return w;
}

/**
 * Type-checks `entry` (typecheck.ts) on the worker thread; the same answer as
 * {@link typecheckGuest}. A worker that cannot start or dies means the check runs here instead.
 *
 * @example
 * const problems = await checkInWorker('src/extension.ts', { runtime: 'wasm', cacheDir });
 */
export async function checkInWorker(entry: string, options: TypecheckOptions = {}): Promise<Diagnostic[]> {
  if (checkedClean(entry, options)) return [];
  let w: Worker;
  try {
    w = theWorker();
  } catch {
    return typecheckGuest(entry, options);
  }
  const id = nextId++;
  const answer = new Promise<Diagnostic[]>((resolve, reject) => pending.set(id, { resolve, reject }));
  w.ref();
  w.postMessage({ id, entry, options } satisfies CheckRequest);
  try {
    return await answer;
  } catch (error) {
    if (error instanceof MepError) throw error;
    return typecheckGuest(entry, options); // the thread died: the check itself still answers
  }
}
