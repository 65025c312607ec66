import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { ErrorCode, LocalErrorCode, isMepError } from '../../protocol/errors.ts';
import { compileExtensionModule, createWasmTransport, GUEST_MEMORY_LOG } from './index.ts';
import { createTestClient, openFixture, rejection } from '../../../../fixtures/wasm/test-client.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';

const isolations = ['inline', 'worker'] as const;
const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);

for (const isolation of isolations) {
  const roundTrip = suite(`createWasmTransport :: ${isolation}`);

  roundTrip('should answer a request with the echo of its params', async () => {
    const transport = await openFixture('echo', isolation);
    try {
      const client = createTestClient(transport);
      const params = { text: 'héllo "wörld" 😀', list: [1, 2, { nested: '}' }] };
      assert.equal(await client.request(1, 'ping', params), { jsonrpc: '2.0', id: 1, result: params });
      assert.equal(await client.request('two', 'ping'), { jsonrpc: '2.0', id: 'two', result: null });
    } finally {
      await transport.close();
    }
  });

  roundTrip('should answer requests in order and run notifications without a response', async () => {
    const transport = await openFixture('echo', isolation);
    try {
      const client = createTestClient(transport);
      client.notify('note', { a: 1 });
      const answers = await Promise.all([1, 2, 3].map((id) => client.request(id, 'ping', { id })));
      assert.equal(answers.map((m) => m.id), [1, 2, 3]);
      assert.equal(client.seen.map((m) => m.id), [1, 2, 3]);
    } finally {
      await transport.close();
    }
  });

  roundTrip('should deliver a progress notification before the response', async () => {
    const transport = await openFixture('echo', isolation);
    try {
      const client = createTestClient(transport);
      await client.request(7, 'notify', { n: 1 });
      assert.equal(client.seen.map((m) => m.method ?? `response ${String(m.id)}`), ['$/progress', 'response 7']);
    } finally {
      await transport.close();
    }
  });

  roundTrip('should answer a guest request from a synchronous handler', async () => {
    const transport = await openFixture('echo', isolation);
    try {
      const client = createTestClient(transport);
      transport.onMessage((m) => {
        if (m.method === 'secret.resolve') transport.send({ jsonrpc: '2.0', id: m.id, result: { value: 's3cret' } });
      });
      const answer = await client.request(1, 'ask');
      assert.equal(answer.result, { jsonrpc: '2.0', id: 'g1', result: { value: 's3cret' } });
    } finally {
      await transport.close();
    }
  });

  roundTrip('should drop a queued request when cancelled and answer -32800 without running it', async () => {
    const transport = await openFixture('echo', isolation);
    try {
      const client = createTestClient(transport);
      const first = client.request(1, 'ping');
      const second = client.request(2, 'notify');
      transport.cancel(2);
      assert.is(((await second).error as { code: number }).code, ErrorCode.RequestCancelled);
      assert.equal((await first).result, null);
      assert.not.ok(client.seen.some((m) => m.method === '$/progress'), 'the cancelled request never ran');
      assert.equal((await client.request(3, 'ping', 'still open')).result, 'still open');
    } finally {
      await transport.close();
    }
  });

  roundTrip('should interrupt a running request when cancelled and stay usable', async () => {
    const transport = await openFixture('echo', isolation);
    try {
      const client = createTestClient(transport);
      // The spin method reports progress, then polls mep_interrupt until it is set.
      transport.onMessage((m) => {
        if (m.method === '$/progress') transport.cancel(1);
      });
      const answer = await client.request(1, 'spin');
      assert.is((answer.error as { code: number }).code, ErrorCode.RequestCancelled);
      assert.equal((await client.request(2, 'ping', 2)).result, 2);
    } finally {
      await transport.close();
    }
  });

  roundTrip('should grant no clock and no randomness by default', async () => {
    const transport = await openFixture('echo', isolation);
    try {
      const client = createTestClient(transport);
      assert.is((await client.request(1, 'clock')).result, 0);
      assert.is((await client.request(2, 'random')).result, 0);
    } finally {
      await transport.close();
    }
  });

  roundTrip('should give the clock and randomness when granted', async () => {
    const transport = await openFixture('echo', isolation, { grants: { clock: true, random: true } });
    try {
      const client = createTestClient(transport);
      const before = Date.now();
      const clock = (await client.request(1, 'clock')).result as number;
      assert.ok(clock >= before - 1 && clock <= Date.now() + 1, `clock ${clock}`);
      assert.is((await client.request(2, 'random')).result, 16);
    } finally {
      await transport.close();
    }
  });

  roundTrip('should refuse an oversized message in send and stay open', async () => {
    const transport = await openFixture('echo', isolation, { limits: { maxRequestBytes: 1024 } });
    try {
      const client = createTestClient(transport);
      assert.is(codeOf(await rejection(client.request(1, 'ping', 'x'.repeat(2000)))), LocalErrorCode.Limit);
      assert.equal((await client.request(2, 'ping', 'small')).result, 'small');
    } finally {
      await transport.close();
    }
  });

  roundTrip('should answer a guest-reported failure with -32010 and stay open', async () => {
    const transport = await openFixture('guest-error', isolation);
    try {
      const client = createTestClient(transport);
      const answer = await client.request(1, 'ping');
      assert.is((answer.error as { code: number }).code, ErrorCode.ExtensionFailure);
      assert.is((await client.request(2, 'ping')).id, 2);
    } finally {
      await transport.close();
    }
  });

  roundTrip('should report the guest memory after each call as a debug log line', async () => {
    const lines: string[] = [];
    const transport = await openFixture('echo', isolation, { log: (entry) => void (entry.level === 'debug' && lines.push(entry.message)) });
    try {
      const client = createTestClient(transport);
      await client.request(1, 'ping', { big: 'x'.repeat(200_000) });
      await client.request(2, 'ping');
      const sizes = lines.map((line) => GUEST_MEMORY_LOG.exec(line)).filter((m) => m !== null).map((m) => Number(m[1]));
      assert.is(sizes.length, 2, lines.join('\n'));
      // Whole pages, enough to have held the 200 KB message, and never shrinking.
      for (const size of sizes) assert.ok(size % 65536 === 0 && size >= 200_000, String(size));
      assert.ok(sizes[1] >= sizes[0]);
    } finally {
      await transport.close();
    }
  });

  roundTrip('should throw ERR_TRANSPORT_CLOSED from send after close', async () => {
    const transport = await openFixture('echo', isolation);
    const client = createTestClient(transport);
    await transport.close();
    assert.is(await client.closed, undefined);
    assert.throws(() => transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }), (e: unknown) => codeOf(e) === LocalErrorCode.TransportClosed);
  });

  roundTrip.run();
}

const guestRequests = suite('guest requests');

guestRequests('should wait in a worker for an asynchronous answer', async () => {
  const transport = await openFixture('echo', 'worker');
  try {
    const client = createTestClient(transport);
    transport.onMessage((m) => {
      if (m.method === 'secret.resolve') setTimeout(() => transport.send({ jsonrpc: '2.0', id: m.id, result: 'later' }), 20);
    });
    assert.equal((await client.request(1, 'ask')).result, { jsonrpc: '2.0', id: 'g1', result: 'later' });
  } finally {
    await transport.close();
  }
});

guestRequests('should return -1 inline when the answer is not synchronous', async () => {
  const transport = await openFixture('echo', 'inline');
  try {
    const client = createTestClient(transport);
    const asked = client.next((m) => m.method === 'secret.resolve');
    assert.is((await client.request(1, 'ask')).result, null);
    // The late answer goes to the guest as an ordinary message: no response expected, still open.
    transport.send({ jsonrpc: '2.0', id: (await asked).id, result: 'late' });
    assert.is((await client.request(2, 'ping', 2)).result, 2);
  } finally {
    await transport.close();
  }
});

guestRequests.run();

const modules = suite('compileExtensionModule');

modules('should compile the same bytes once', async () => {
  const bytes = loadWatFixture('echo');
  const a = await compileExtensionModule(bytes, { name: 'echo' });
  const b = await compileExtensionModule(loadWatFixture('echo'), { name: 'echo' });
  assert.is(a, b);
  assert.is.not(await compileExtensionModule(bytes, { name: 'echo', limits: { maxMemoryBytes: 1 << 20 } }), a);
});

modules('should accept a compiled module and instantiate many sessions from it', async () => {
  const module = await compileExtensionModule(loadWatFixture('echo'), { name: 'echo' });
  const transports = await Promise.all([1, 2, 3].map(() => createWasmTransport({ name: 'echo', module, isolation: 'inline' })));
  try {
    const answers = await Promise.all(transports.map((t, i) => createTestClient(t).request(i, 'ping', i)));
    assert.equal(answers.map((m) => m.result), [0, 1, 2]);
  } finally {
    await Promise.all(transports.map((t) => t.close()));
  }
});

modules('should refuse worker isolation without a spawner', async () => {
  const error = await rejection(createWasmTransport({ name: 'echo', module: loadWatFixture('echo'), isolation: 'worker' }));
  assert.is(codeOf(error), LocalErrorCode.Usage);
});

modules('should refuse a limit the sandbox does not know, naming it and the fields to set, instead of running with the default (maxMessageBytes from a page)', async () => {
  // An embedding page passed the user-facing name; the 64 MiB default applied and nothing said so.
  for (const [limits, says] of [
    [{ maxMessageBytes: 1024 * 1024 }, /maxMessageBytes.*maxRequestBytes and maxResponseBytes/],
    [{ maxOutputBytes: 1024 }, /maxOutputBytes.*outputLimits/],
    [{ maxMemoryByte: 1 << 20 }, /maxMemoryByte.*maxMemoryBytes, maxRequestBytes/],
  ] as const) {
    const error = await rejection(createWasmTransport({ name: 'echo', module: loadWatFixture('echo'), isolation: 'inline', limits: limits as never }));
    assert.is(codeOf(error), LocalErrorCode.Usage, String(error));
    assert.match((error as Error).message, says);
  }
});

modules.run();

const soak = suite('100,000 calls');

/** A forced full GC, so heap figures compare like with like. */
const gc = (): void => {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
};

soak('should make 100,000 calls on one inline session with flat memory', async () => {
  const transport = await openFixture('echo', 'inline');
  try {
    const client = createTestClient(transport);
    const callsAt = async (from: number, count: number): Promise<void> => {
      for (let id = from; id < from + count; id++) {
        const answer = await client.request(id, 'ping', id);
        if (answer.result !== id) assert.unreachable(`call ${id} answered ${JSON.stringify(answer)}`);
      }
      client.seen.length = 0;
    };
    await callsAt(0, 5_000);
    gc();
    const before = process.memoryUsage();
    await callsAt(5_000, 95_000);
    gc();
    const after = process.memoryUsage();
    const heapGrowth = after.heapUsed - before.heapUsed;
    const arrayBufferGrowth = after.arrayBuffers - before.arrayBuffers;
    assert.ok(heapGrowth < 8 * 1024 * 1024, `heap grew by ${heapGrowth} bytes`);
    assert.ok(arrayBufferGrowth < 1024 * 1024, `array buffers grew by ${arrayBufferGrowth} bytes`);
  } finally {
    await transport.close();
  }
});

soak('should pass call 16,384 in a worker session', async () => {
  const transport = await openFixture('echo', 'worker');
  try {
    const client = createTestClient(transport);
    for (let id = 0; id < 17_000; id++) {
      const answer = await client.request(id, 'ping');
      if (answer.id !== id) assert.unreachable(`call ${id} answered ${JSON.stringify(answer)}`);
      client.seen.length = 0;
    }
  } finally {
    await transport.close();
  }
});

soak.run();
