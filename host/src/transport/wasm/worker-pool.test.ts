import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { compileExtensionModule, createWasmTransport, GUEST_MEMORY_LOG, warmWasmTransport, type SpawnWasmWorker, type WasmTransport } from './index.ts';
import { createNodeWasmWorkerSpawner } from './node/worker.ts';
import { CHANNEL_DATA_BYTES } from './worker-channel.ts';
import { workerPoolOf, type WasmWorkerPoolOptions } from './worker-pool.ts';
import { createTestClient, rejection } from '../../../../fixtures/wasm/test-client.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';

const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);
const echo = await compileExtensionModule(loadWatFixture('echo'), { name: 'echo' });
const loop = await compileExtensionModule(loadWatFixture('loop'), { name: 'loop' });
const guestError = await compileExtensionModule(loadWatFixture('guest-error'), { name: 'guest-error' });

/** A Node spawner with its own pool, counting the threads that are really alive. */
function countingSpawner(options: WasmWorkerPoolOptions): { spawn: SpawnWasmWorker; alive(): number; crashAll(): Promise<void> } {
  const base = createNodeWasmWorkerSpawner();
  let alive = 0;
  const crashers = new Set<() => Promise<void>>();
  const spawn: SpawnWasmWorker = async () => {
    const handle = await base();
    alive++;
    let gone = false;
    let exitListener: ((error: Error | undefined) => void) | undefined;
    const down = (): void => {
      if (!gone) alive--;
      gone = true;
      crashers.delete(crash);
    };
    // A thread dying on its own, as the pool sees it: gone, then reported.
    const crash = async (): Promise<void> => {
      await handle.terminate();
      down();
      exitListener?.(new Error('worker exited with code 1'));
    };
    crashers.add(crash);
    handle.onExit((error) => (down(), exitListener?.(error)));
    return {
      ...handle,
      onExit: (listener) => void (exitListener = listener),
      terminate: () => handle.terminate().then(down),
    };
  };
  workerPoolOf(spawn, options);
  return { spawn, alive: () => alive, crashAll: () => Promise.all([...crashers].map((c) => c())).then(() => undefined) };
}

/** Resolves once `condition` holds; fails after `ms`. */
async function until(condition: () => boolean, ms: number, what: () => string): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) assert.unreachable(`${what()} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const open = (spawnWorker: SpawnWasmWorker, module = echo, limits = {}): Promise<WasmTransport> =>
  createWasmTransport({ name: 'pooled', module, isolation: 'worker', spawnWorker, limits });

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

pool('should carry calls and answers larger than the shared channel, in order with their notifications', async () => {
  const { spawn } = countingSpawner({ spares: 1 });
  const transport = await open(spawn);
  try {
    const client = createTestClient(transport);
    for (const size of [10, CHANNEL_DATA_BYTES - 100, CHANNEL_DATA_BYTES + 1, 3 * CHANNEL_DATA_BYTES]) {
      const text = 'é'.repeat(size / 2);
      const progress = client.next((m) => m.method === '$/progress');
      const answer = await client.request(size, 'notify', text);
      assert.is(answer.result, text, `echo of ${size} bytes`);
      const index = client.seen.findIndex((m) => m.id === size);
      assert.ok(client.seen.indexOf(await progress) < index, `the notification of call ${size} came before its response`);
      client.seen.length = 0;
    }
  } finally {
    await transport.close();
  }
  await workerPoolOf(spawn).close();
});

pool('should answer every one of many failed calls (their results posted, not shared), in order', async () => {
  const { spawn } = countingSpawner({ spares: 1 });
  const transport = await open(spawn, guestError);
  try {
    const client = createTestClient(transport);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, id) => client.request(id, 'ping')));
    assert.equal(client.seen.map((m) => m.id), Array.from({ length: 200 }, (_, id) => id), 'answered once each, in order');
    assert.ok(answers.every((m) => (m.error as { code?: number } | undefined)?.code === ErrorCode.ExtensionFailure));
  } finally {
    await transport.close();
  }
  await workerPoolOf(spawn).close();
});

pool('should serve, reuse and answer guest requests by messages alone when the pool does not listen', async () => {
  const { spawn, alive } = countingSpawner({ spares: 1, listen: false });
  for (let round = 0; round < 2; round++) {
    const transport = await open(spawn);
    try {
      const client = createTestClient(transport);
      transport.onMessage((m) => {
        if (m.method === 'secret.resolve') transport.send({ jsonrpc: '2.0', id: m.id, result: round });
      });
      assert.equal((await client.request(1, 'ask')).result, { jsonrpc: '2.0', id: 'g1', result: round });
      const progress = client.next((m) => m.method === '$/progress');
      assert.is((await client.request(2, 'notify', 'x')).result, 'x');
      assert.ok(client.seen.indexOf(await progress) < client.seen.findIndex((m) => m.id === 2));
    } finally {
      await transport.close();
    }
  }
  assert.is(workerPoolOf(spawn).stats().started, 1);
  await workerPoolOf(spawn).close();
  assert.is(alive(), 0);
});

pool('should drop an idle worker that dies and start the next session on a new thread', async () => {
  const { spawn, alive, crashAll } = countingSpawner({ spares: 1 });
  const stats = workerPoolOf(spawn).stats;
  const first = await open(spawn);
  assert.is((await createTestClient(first).request(1, 'ping', 1)).result, 1);
  await first.close();
  await crashAll();
  assert.equal({ threads: stats().threads, idle: stats().idle, alive: alive() }, { threads: 0, idle: 0, alive: 0 });
  const next = await open(spawn);
  try {
    assert.is((await createTestClient(next).request(1, 'ping', 2)).result, 2);
    assert.is(stats().started, 2);
  } finally {
    await next.close();
  }
  await workerPoolOf(spawn).close();
});

pool('should fail a session whose worker dies mid-call with ERR_EXTENSION_CRASHED, and go on', async () => {
  const { spawn, crashAll } = countingSpawner({ spares: 1 });
  const busy = await open(spawn, loop);
  const client = createTestClient(busy);
  const pending = rejection(client.request(1, 'ping'));
  await crashAll();
  assert.is(codeOf(await pending), LocalErrorCode.ExtensionCrashed);
  await busy.close();
  const next = await open(spawn);
  try {
    assert.is((await createTestClient(next).request(1, 'ping', 'ok')).result, 'ok');
  } finally {
    await next.close();
  }
  await workerPoolOf(spawn).close();
});

pool('should log the engine memory line of every call after its notifications and before its answer, whichever way the answer travels', async () => {
  const { spawn } = countingSpawner({ spares: 1 });
  const events: string[] = [];
  const transport = await createWasmTransport({
    name: 'pooled',
    module: echo,
    isolation: 'worker',
    spawnWorker: spawn,
    log: (entry) => void (GUEST_MEMORY_LOG.test(entry.message) && events.push('memory')),
  });
  try {
    transport.onMessage((m) => void events.push(m.method === '$/progress' ? 'progress' : `answer ${String(m.id)}`));
    const client = createTestClient(transport);
    // Outputs on both sides of the data area's end, with and without room for the line after them.
    const sizes = [1, CHANNEL_DATA_BYTES * 2];
    for (let size = CHANNEL_DATA_BYTES - 120; size <= CHANNEL_DATA_BYTES; size += 8) sizes.push(size);
    for (const size of sizes) {
      events.length = 0;
      assert.is((await client.request(size, 'notify', 'x'.repeat(size))).result, 'x'.repeat(size));
      assert.equal(events, ['progress', 'memory', `answer ${size}`], `output of about ${size} bytes`);
    }
  } finally {
    await transport.close();
  }
  await workerPoolOf(spawn).close();
});

pool('should keep the messages of a call before its answer on a platform that cannot take them early', async () => {
  const base = createNodeWasmWorkerSpawner();
  // As in a browser: messages come through the event loop only.
  const spawn: SpawnWasmWorker = async () => ({ ...(await base()), receiveSync: undefined });
  workerPoolOf(spawn, { spares: 1 });
  const transport = await open(spawn);
  try {
    const client = createTestClient(transport);
    for (let id = 1; id <= 50; id++) {
      const progress = client.next((m) => m.method === '$/progress');
      assert.is((await client.request(id, 'notify', id)).result, id);
      assert.ok(client.seen.indexOf(await progress) < client.seen.findIndex((m) => m.id === id), `call ${id}`);
      client.seen.length = 0;
    }
  } finally {
    await transport.close();
  }
  await workerPoolOf(spawn).close();
});

pool('should stop polling once idle: a worker between sessions or calls burns no CPU', async () => {
  const { spawn } = countingSpawner({ spares: 1 });
  const transport = await open(spawn);
  try {
    const client = createTestClient(transport);
    // Back-to-back calls, so both sides poll.
    for (let id = 0; id < 2_000; id++) await client.request(id, 'ping');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const idleMs = 300;
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const { user, system } = process.cpuUsage(before);
    // A thread still polling would use most of the interval, even on a crowded machine.
    assert.ok((user + system) / 1000 < idleMs / 4, `${((user + system) / 1000).toFixed(1)} ms of CPU in ${idleMs} ms idle`);
  } finally {
    await transport.close();
  }
  await workerPoolOf(spawn).close();
});

pool.run();
