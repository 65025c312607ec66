import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { resolveWasmLimits } from './limits.ts';
import { createWasmWorkerPool } from './worker-pool.ts';
import type { SpawnWasmWorker } from './pool-thread.ts';
import type { FromWorker, ToWorker } from './worker-protocol.ts';

/**
 * Threads that answer an engine's first preparation at once, and begin renewing it (`starting`)
 * but never finish, as a guest's instantiation still under way when a one-shot command is done.
 */
function renewingSpawner(): { spawn: SpawnWasmWorker; posted: string[]; refs: () => number } {
  const posted: string[] = [];
  let refs = 0;
  const spawn: SpawnWasmWorker = async () => {
    let listener: (message: FromWorker) => void = () => undefined;
    let ref = true;
    refs++;
    const answer = (...messages: FromWorker[]): void => void setImmediate(() => messages.forEach((m) => listener(m)));
    return {
      postMessage(message: ToWorker) {
        posted.push(message.type);
        if (message.type === 'init') answer({ type: 'starting' }, { type: 'ready' });
        if (message.type === 'renew') answer({ type: 'starting' });
      },
      onMessage: (l) => void (listener = l),
      onExit: () => undefined,
      terminate: async () => undefined,
      unref() {
        if (ref) refs--;
        ref = false;
      },
      ref() {
        if (!ref) refs++;
        ref = true;
      },
    };
  };
  return { spawn, posted, refs: () => refs };
}

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

const exit = suite('worker pool: what keeps the process alive');

exit('should let the process exit while a released worker renews its engine as a spare (a one-shot mep command)', async () => {
  const before = timers();
  const { spawn, posted, refs } = renewingSpawner();
  const pool = createWasmWorkerPool(spawn, { spares: 1, listen: false });
  const module = await WebAssembly.compile(loadWatFixture('echo') as Uint8Array<ArrayBuffer>);
  const worker = await pool.acquire({ module, name: 'echo', limits: resolveWasmLimits('echo', {}), grants: {} });
  await worker.release(true);
  for (let i = 0; i < 50 && !posted.includes('renew'); i++) await new Promise((r) => setImmediate(r));
  // The worker's `starting` arms the preparation's deadline.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(posted, ['init', 'renew']);
  assert.is(refs(), 0, 'the parked worker is unref\'d');
  assert.is(timers(), before, 'no timer of the spare\'s preparation holds the event loop');
  await pool.close();
});

exit.run();
