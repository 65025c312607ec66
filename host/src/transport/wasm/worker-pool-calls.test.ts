import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, LocalErrorCode } from '../../protocol/errors.ts';
import { createWasmTransport, GUEST_MEMORY_LOG, type SpawnWasmWorker } from './index.ts';
import { createNodeWasmWorkerSpawner } from './node/worker.ts';
import { CHANNEL_DATA_BYTES } from './worker-channel.ts';
import { workerPoolOf } from './worker-pool.ts';
import { createTestClient, rejection } from '../../../../fixtures/wasm/test-client.ts';
import { codeOf, echo, loop, guestError, countingSpawner, open } from '../../../../fixtures/wasm/pool-support.ts';

const pool = suite('worker pool :: calls through a pooled worker');

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
