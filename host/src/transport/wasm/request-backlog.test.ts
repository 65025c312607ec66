import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, isMepError, type MepError } from '../../protocol/errors.ts';
import { HOST_BOUNDS } from '../../protocol/limits.ts';
import { createTestClient, openFixture } from '../../../../fixtures/wasm/test-client.ts';

const MiB = 1024 * 1024;
/** The bound in MiB (a literal, so the test reads the same against code without it). */
const BOUND_MIB = 16;

const Backlog = suite('wasm transport :: requests queued behind a running call');

Backlog('should refuse a request past maxQueuedRequestBytes queued behind a busy guest, unsent, and keep the session :: ERR_LIMIT', async () => {
  // A caller pipelining calls to a guest that is busy (a `mep serve` client: up to 64 calls of
  // 64 MiB on one connection) had every request held here, encoded, until the guest took it:
  // 9 calls of 60 MB behind a running one took the host from 110 MB to 1,985 MB RSS.
  const transport = await openFixture('loop', 'worker', { limits: { callTimeoutMs: 30_000 } });
  try {
    const client = createTestClient(transport);
    const running = client.request('running', 'ping').catch((error: unknown) => error);
    const pad = 'p'.repeat(MiB);
    assert.is(HOST_BOUNDS.maxQueuedRequestBytes, BOUND_MIB * MiB);
    const count = BOUND_MIB + 8;
    const outcomes = Array.from({ length: count }, (_, i) => client.request(i, 'generate', { pad }).then(
      () => 'answered',
      (error: unknown) => error,
    ));
    // Refusals are synchronous; the queued ones wait for the spinning guest.
    const settled = await Promise.all(outcomes.map((o) => Promise.race([o, new Promise((resolve) => setTimeout(() => resolve('queued'), 200))])));
    const refused = settled.filter((o): o is MepError => isMepError(o));
    assert.ok(refused.length >= 7, `refused ${refused.length} of ${count}: ${JSON.stringify(settled.map((o) => (isMepError(o) ? o.code : o)))}`);
    assert.ok(settled.slice(0, BOUND_MIB).every((o) => o === 'queued'), 'the requests within the bound are queued');
    for (const error of refused) {
      assert.is(error.code, LocalErrorCode.Limit);
      assert.equal([(error.data as { limit: unknown }).limit, (error.data as { sent: unknown }).sent], ['maxQueuedRequestBytes', false]);
      assert.match(error.message, /queued behind its running call.*was not sent/);
    }
    // The session goes on: the refusals were the caller's, not the guest's.
    const open = await Promise.race([client.closed.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('open'), 100))]);
    assert.is(open, 'open');
    void running;
  } finally {
    await transport.close();
  }
});

Backlog('should take requests again once the queue is below the bound (cancelled ones give their bytes back)', async () => {
  const transport = await openFixture('loop', 'worker', { limits: { callTimeoutMs: 30_000 } });
  try {
    const client = createTestClient(transport);
    void client.request('running', 'ping').catch(() => undefined);
    const pad = 'p'.repeat(MiB);
    const ids = Array.from({ length: BOUND_MIB + 1 }, (_, i) => `q${i}`);
    for (const id of ids) void client.request(id, 'generate', { pad }).catch(() => undefined);
    assert.throws(() => transport.send({ jsonrpc: '2.0', id: 'past', method: 'generate', params: { pad } }), (e: unknown) => isMepError(e) && e.code === LocalErrorCode.Limit);
    for (const id of ids) client.notify('$/cancelRequest', { id });
    transport.send({ jsonrpc: '2.0', id: 'again', method: 'generate', params: { pad } });
  } finally {
    await transport.close();
  }
});

Backlog.run();
