import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { warmWasmTransport } from './index.ts';
import { workerPoolOf } from './worker-pool.ts';
import { createTestClient, rejection } from '../../../../fixtures/wasm/test-client.ts';
import { codeOf, echo, loop, guestError, countingSpawner, until, open } from '../../../../fixtures/wasm/pool-support.ts';

const pool = suite('worker pool');

pool('should reuse the thread of a closed session, with a fresh engine that answers guest requests', async () => {
  const { spawn } = countingSpawner({ spares: 1 });
  const stats = workerPoolOf(spawn).stats;
  for (let round = 0; round < 3; round++) {
    const transport = await open(spawn);
    try {
      const client = createTestClient(transport);
      transport.onMessage((m) => {
        if (m.method === 'secret.resolve') setTimeout(() => transport.send({ jsonrpc: '2.0', id: m.id, result: `r${round}` }), 1);
      });
      assert.equal((await client.request(1, 'ask')).result, { jsonrpc: '2.0', id: 'g1', result: `r${round}` });
      assert.is((await client.request(2, 'ping', round)).result, round);
    } finally {
      await transport.close();
    }
  }
  assert.is(stats().started, 1, 'one thread served three sessions one after another');
  await workerPoolOf(spawn).close();
});

pool('should terminate a released worker while renewals are held (no fresh engine), and renew again once they are not', async () => {
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const workers = workerPoolOf(spawn);
  workers.holdRenewals(true);
  try {
    await (await open(spawn)).close();
  } finally {
    workers.holdRenewals(false);
  }
  await until(() => alive() === 0, 5000, () => `the held-back release's thread ending (${alive()} alive)`);
  assert.is(workers.stats().idle, 0);
  await (await open(spawn)).close();
  await until(() => workers.stats().idle === 1, 5000, () => 'the released worker renewed and parked');
  assert.is(alive(), 1);
  await workers.close();
});

pool('should start a warmed guest ahead on one thread, which its session takes, even while the thread is starting', async () => {
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const stats = workerPoolOf(spawn).stats;
  const options = { name: 'pooled', module: echo, isolation: 'worker' as const, spawnWorker: spawn, limits: {} };
  await Promise.all([warmWasmTransport(options), warmWasmTransport(options)]);
  assert.equal([stats().started, stats().idle], [1, 1], 'two warms of one guest start one spare');
  await warmWasmTransport(options);
  assert.is(stats().started, 1, 'a guest with a spare is not warmed again');
  const transport = await open(spawn);
  try {
    assert.is((await createTestClient(transport).request(1, 'ping', 'warm')).result, 'warm');
  } finally {
    await transport.close();
  }
  assert.is(stats().started, 1, 'the session took the warmed thread');
  await workerPoolOf(spawn).close();
  assert.is(alive(), 0);
  // A session opened while its warmed thread is still starting waits for that thread.
  const fresh = countingSpawner({ spares: 1 });
  void warmWasmTransport({ ...options, spawnWorker: fresh.spawn });
  const early = await open(fresh.spawn);
  assert.is((await createTestClient(early).request(1, 'ping', 2)).result, 2);
  await early.close();
  assert.is(workerPoolOf(fresh.spawn).stats().started, 1);
  await workerPoolOf(fresh.spawn).close();
});

pool('should give a thread prestarted before its guest was known to the warm and the session that follow', async () => {
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const workers = workerPoolOf(spawn);
  const options = { name: 'pooled', module: echo, isolation: 'worker' as const, spawnWorker: spawn, limits: {} };
  // Both land while the thread starts: one thread, and the warm prepares it rather than start another.
  await Promise.all([workers.prestart(), workers.prestart(), warmWasmTransport(options)]);
  assert.equal([workers.stats().started, workers.stats().idle], [1, 1], 'one thread for the prestart and the warm');
  const transport = await open(spawn);
  try {
    assert.is((await createTestClient(transport).request(1, 'ping', 'pre')).result, 'pre');
  } finally {
    await transport.close();
  }
  assert.is(workers.stats().started, 1, 'the session ran on the prestarted thread');
  await workers.close();
  assert.is(alive(), 0);
  // Without a warm, a session opened while the prestarted thread starts waits for it and takes it.
  const fresh = countingSpawner({ spares: 1 });
  void workerPoolOf(fresh.spawn).prestart();
  const early = await open(fresh.spawn);
  assert.is((await createTestClient(early).request(1, 'ping', 3)).result, 3);
  await early.close();
  assert.is(workerPoolOf(fresh.spawn).stats().started, 1);
  await workerPoolOf(fresh.spawn).close();
  // A closed pool, or one without room for spares, starts nothing.
  await workerPoolOf(fresh.spawn).prestart();
  const none = countingSpawner({ spares: 0 });
  await workerPoolOf(none.spawn).prestart();
  assert.equal([workerPoolOf(fresh.spawn).stats().started, workerPoolOf(none.spawn).stats().started], [1, 0]);
});

pool('should prepare only the prestarted thread for a warm limited to it, and start none when a session took it first', async () => {
  const options = { name: 'pooled', module: echo, isolation: 'worker' as const, limits: {} };
  // No thread prestarted: nothing starts.
  const none = countingSpawner({ spares: 1 });
  await warmWasmTransport({ ...options, spawnWorker: none.spawn }, { onlyPrestarted: true });
  assert.is(workerPoolOf(none.spawn).stats().started, 0);
  // Prestarted: the warm prepares it, and the session takes it.
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const workers = workerPoolOf(spawn);
  await Promise.all([workers.prestart(), warmWasmTransport({ ...options, spawnWorker: spawn }, { onlyPrestarted: true })]);
  const transport = await open(spawn);
  try {
    assert.is((await createTestClient(transport).request(1, 'ping', 'only')).result, 'only');
  } finally {
    await transport.close();
  }
  assert.is(workers.stats().started, 1, 'the session ran on the prestarted thread');
  await workers.close();
  assert.is(alive(), 0);
  // The session took the prestarted thread before the warm came (the early start's compile was
  // late): the warm starts no second thread to instantiate the guest for nobody.
  const late = countingSpawner({ spares: 1 });
  await workerPoolOf(late.spawn).prestart();
  const session = await open(late.spawn);
  try {
    await warmWasmTransport({ ...options, spawnWorker: late.spawn }, { onlyPrestarted: true });
    assert.equal([workerPoolOf(late.spawn).stats().started, late.alive()], [1, 1], 'no thread started for the warm');
    assert.is((await createTestClient(session).request(1, 'ping', 'late')).result, 'late');
  } finally {
    await session.close();
  }
  await workerPoolOf(late.spawn).close();
  assert.is(late.alive(), 0);
});

pool('should let a warm that cannot start fail quietly, and the session report why', async () => {
  const { spawn } = countingSpawner({ spares: 1 });
  const tooSmall = { name: 'pooled', module: echo, isolation: 'worker' as const, spawnWorker: spawn, limits: { maxMemoryBytes: 0 } };
  await warmWasmTransport(tooSmall); // resolves, whatever went wrong
  assert.is(workerPoolOf(spawn).stats().started, 0);
  assert.ok(isMepError(await rejection(open(spawn, echo, { maxMemoryBytes: 0 }))));
  await workerPoolOf(spawn).close();
});

pool('should replace a worker killed at its deadline, and start the next session on a new thread', async () => {
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const stats = workerPoolOf(spawn).stats;
  const killed = await open(spawn, loop, { callTimeoutMs: 100 });
  assert.is(codeOf(await rejection(createTestClient(killed).request(1, 'ping'))), LocalErrorCode.Timeout);
  await killed.close();
  assert.is(alive(), 0, 'the killed thread is gone');
  const next = await open(spawn);
  try {
    assert.is((await createTestClient(next).request(1, 'ping', 'again')).result, 'again');
    assert.is(stats().started, 2);
  } finally {
    await next.close();
  }
  await workerPoolOf(spawn).close();
  assert.is(alive(), 0);
});

pool('should keep at most `spares` idle workers after many sessions close', async () => {
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const stats = workerPoolOf(spawn).stats;
  const transports = await Promise.all([1, 2, 3, 4].map(() => open(spawn)));
  const answers = await Promise.all(transports.map((t, i) => createTestClient(t).request(i, 'ping', i)));
  assert.equal(answers.map((m) => m.result), [0, 1, 2, 3]);
  await Promise.all(transports.map((t) => t.close()));
  await until(() => stats().threads <= 1 && alive() <= 1, 2000, () => `the pool shrinking to one spare (${JSON.stringify(stats())}, ${alive()} alive)`);
  assert.ok(stats().idle <= 1, `idle ${stats().idle}`);
  await workerPoolOf(spawn).close();
  assert.is(alive(), 0);
});

pool('should start another guest on a new thread, not on the idle one that ran a guest (its compiled code and memories go with it)', async () => {
  // Measured in mep serve (40 modules one after another): a thread re-prepared for each new guest
  // kept every dropped engine's memory and module until its isolate collected them (live linear
  // memories 9 → 33, RSS +125 MB, then back), which the host cannot force.
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const stats = workerPoolOf(spawn).stats;
  for (const [i, module] of [echo, guestError, echo].entries()) {
    const transport = await open(spawn, module);
    await transport.close();
    await until(() => stats().threads === 1 && alive() === 1, 2000, () => `session ${i} leaving one thread (${JSON.stringify(stats())}, ${alive()} alive)`);
  }
  assert.is(stats().started, 3);
  // The same guest again takes its idle thread.
  const again = await open(spawn, echo);
  await again.close();
  assert.is(stats().started, 3);
  await workerPoolOf(spawn).close();
  assert.is(alive(), 0);
});

pool('should release idle workers after idleMs', async () => {
  const { spawn, alive } = countingSpawner({ spares: 2, idleMs: 30 });
  const transport = await open(spawn);
  assert.is((await createTestClient(transport).request(1, 'ping', 1)).result, 1);
  await transport.close();
  await until(() => alive() === 0 && workerPoolOf(spawn).stats().threads === 0, 2000, () => `the idle release (${alive()} alive)`);
});

pool('should leave no thread behind when sessions and the pool close, even mid-call', async () => {
  const { spawn, alive } = countingSpawner({ spares: 1 });
  const busy = await open(spawn, loop);
  const pending = rejection(createTestClient(busy).request(1, 'ping'));
  const quiet = await open(spawn);
  await Promise.all([busy.close(), quiet.close()]);
  assert.is(codeOf(await pending), LocalErrorCode.TransportClosed);
  await workerPoolOf(spawn).close();
  assert.is(alive(), 0);
  assert.is(workerPoolOf(spawn).stats().threads, 0);
  assert.is(codeOf(await rejection(open(spawn))), LocalErrorCode.Usage, 'a closed pool refuses new sessions');
});

pool.run();
