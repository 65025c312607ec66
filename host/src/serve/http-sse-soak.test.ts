/**
 * Many event-stream (SSE) clients of `mep serve --http` at once, some reading in drips, some
 * not at all, in an order and with pauses the run's seed (`MEP_TEST_SEED`) chooses. The events
 * clients leave unread count in one server-wide bound (`maxPendingBytes`): a client that reads
 * keeps its whole stream, the ones that stall are dropped, never the server. Before, past the
 * bound the finished answer waiting longest went first, then the open stream holding the most:
 * a client reading its stream a little slower than the extension made it (1.5-2 MB behind) was
 * dropped, and the stalled ones, whose first 4 MB sat in the kernel's buffers, kept (3 runs of
 * 3 on that code with all six started at once: 1 or 2 of the 3 readers cut, every stalled stream
 * kept). Started at once, the in-process readers also looked stalled now and then on the new
 * code (1 run in 2 beside the other serve/http- tests), so the stalled clients start first; in
 * that order the previous code passes too (its stalled streams finish first and go first as
 * answers): this form guards the promise, it does not show the old failure. Open item: a
 * discriminating form with the readers in a process of their own. The long form
 * (`npm run hostile`, `scripts/hostile/sse-readers.ts`) runs `mep serve --http` as its own
 * process with its default bound and measures its RSS under 24 such clients.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSeededRandom } from '../../../fixtures/testing/random.ts';
import { TEST_SEED } from '../../../fixtures/testing/tier.ts';
import { startTestHttp } from './testing/http.ts';
import { startSseReader, type ReaderRole } from './testing/sse-readers.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const streamer = join(root, 'fixtures/extensions/artifact-stream.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const MiB = 1024 * 1024;

const Soak = suite('mep serve --http :: many slow event-stream readers (seeded)');

Soak(`should keep every stream of a client that reads whole, and drop only stalled ones, across many slow readers (seed ${TEST_SEED}) :: soak`, async () => {
  const random = createSeededRandom(TEST_SEED ^ 0x55e);
  const logs: string[] = [];
  // Streams of 7 MiB (a loopback connection takes up to about 4 MB of one before the server holds
  // any): three stalled ones hold about 10 MB, past the bound of 12 MiB with the readers' lag.
  const served = await startTestHttp({ stream: streamer }, { maxPendingBytes: 12 * MiB }, (line) => logs.push(line));
  const roles: ReaderRole[] = ['stall', 'stall', 'stall', 'drip', 'drip', 'drip'];
  for (let i = roles.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [roles[i], roles[j]] = [roles[j]!, roles[i]!];
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count: 28, kib: 256 } } });
  // The stalled clients first, given a second to fill their sockets' buffers: the readers, in
  // this process, share its event loop with the server, and one starved by a burst of the
  // server's writes would look stalled for that moment (a client of its own process does not).
  const start = (role: ReaderRole) => startSseReader({ port: served.listener.port, route: 'stream', body, role, random, maxPauseMs: 5 });
  const readers = roles.filter((role) => role === 'stall').map(start);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  readers.push(...roles.filter((role) => role === 'drip').map(start));
  try {
    const drips = await Promise.all(readers.filter((r) => r.role === 'drip').map((r) => Promise.race([r.done, new Promise((resolve) => setTimeout(resolve, 60_000)).then(() => r.settleWithin(0))])));
    const stalls = await Promise.all(readers.filter((r) => r.role === 'stall').map((r) => r.settleWithin(10_000)));
    const shown = `seed ${TEST_SEED}, roles ${roles.join(',')}: ${[...drips, ...stalls].map((o) => `${o.role} ${o.bytes} B ${o.whole ? 'whole' : o.cut ? 'cut' : 'open'}`).join('; ')}\n${logs.join('\n')}`;
    assert.ok(drips.every((o) => o.whole && o.answer && o.bytes > 7 * MiB), `every client that reads got its whole stream and answer: ${shown}`);
    assert.ok(stalls.some((o) => o.cut && o.bytes < 7 * MiB), `a stalled stream was dropped: ${shown}`);
    const drops = logs.filter((line) => /was dropped/.test(line));
    assert.ok(drops.length >= 1 && drops.every((line) => /maxPendingBytes/.test(line) && /12582912/.test(line)), shown);
  } finally {
    await Promise.all(readers.map((r) => r.settleWithin(0)));
    await served.close();
  }
});

Soak.run();
