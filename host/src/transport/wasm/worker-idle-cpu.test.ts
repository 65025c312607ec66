import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { workerPoolOf } from './worker-pool.ts';
import { createTestClient } from '../../../../fixtures/wasm/test-client.ts';
import { countingSpawner, open } from '../../../../fixtures/wasm/pool-support.ts';

const idle = suite('worker pool :: an idle session sleeps');

/** The process's CPU time (user + system, ms) over `ms` of wall time doing nothing on this thread. */
const cpuWhileIdle = async (ms: number): Promise<{ cpuMs: number; wallMs: number }> => {
  const started = performance.now();
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - started };
};

idle('should stop polling once calls stop coming: a streak of back-to-back calls, then ~300 ms idle, costs the process little CPU', async () => {
  const { spawn } = countingSpawner({ spares: 1 });
  const transport = await open(spawn);
  try {
    const client = createTestClient(transport);
    // Back to back: each call follows the last answer within µs, the worker's streak poll is on.
    for (let id = 0; id < 2_000; id++) await client.request(id, 'ping');
    client.seen.length = 0;
    const { cpuMs, wallMs } = await cpuWhileIdle(300);
    // A worker polling on would take a whole CPU for the whole wait; sleeping, the process takes ~1 ms.
    assert.ok(cpuMs < wallMs / 4, `the process used ${cpuMs.toFixed(1)} ms of CPU in ${wallMs.toFixed(0)} ms idle`);
  } finally {
    await transport.close();
  }
  await workerPoolOf(spawn).close();
});

idle.run();
