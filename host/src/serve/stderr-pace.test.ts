import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createByteChannelPair } from './byte-channel.ts';
import { createHostServer } from './host-server.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { createLineClient } from './testing/line-client.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const IR = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };
const KiB = 1024;

const Pace = suite('mep serve :: a process extension’s stderr, paced to its client');

Pace('should hold an extension flooding stderr while its client reads slowly, not drop the client, and deliver every line once it reads :: stderr', async () => {
  // Before, stderr was read as fast as the extension wrote it and each line sent to the client
  // as session/log: a client that read slower than the extension wrote passed maxPendingBytes
  // and was dropped with its sessions, for logs it never asked for.
  const dropped: string[] = [];
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000, pauseAtBytes: 64 * KiB, maxPendingBytes: 1024 * KiB, log: (message) => dropped.push(message) });
  const [serverSide, clientSide] = createByteChannelPair();
  const connection = server.connect(serverSide);
  const client = createLineClient((bytes) => clientSide.write(bytes));
  clientSide.onData((chunk) => client.push(chunk));
  let gone = false;
  void connection.closed.then(() => (gone = true));
  try {
    const opened = await client.request(1, ServeMethod.Open, { extension: join(root, 'fixtures/extensions/stderr-flood.mjs') });
    const { sessionId } = opened.result as { sessionId: string };
    // The client stops reading; the extension writes 4 MiB of stderr, four times what the server holds for it.
    clientSide.pause();
    const answer = client.request(2, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir: IR, target: 'echo', options: { stderrMib: 4 } } });
    let most = 0;
    for (let i = 0; i < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      most = Math.max(most, serverSide.pendingBytes);
    }
    assert.is(gone, false, `the client was dropped: ${dropped.join(' ')}`);
    assert.ok(most <= 1024 * KiB, `the server held ${most} bytes for the client`);
    clientSide.resume();
    const response = await answer;
    assert.ok('result' in response, JSON.stringify(response).slice(0, 300));
    const logged = client.seen.filter((m) => m.method === ServeMethod.Log && (m.params as { message: string }).message.startsWith('xxxx'));
    const chars = logged.reduce((sum, m) => sum + (m.params as { message: string }).message.length, 0);
    assert.ok(chars >= 4 * 1024 * KiB - 64 * 64, `${chars} characters of log delivered`);
    assert.is(gone, false);
  } finally {
    clientSide.close();
    await server.close();
  }
});

Pace('should close a session whose stderr is held when its client leaves without reading, and leave no process :: stderr', async () => {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000, pauseAtBytes: 64 * KiB, maxPendingBytes: 1024 * KiB });
  const [serverSide, clientSide] = createByteChannelPair();
  const connection = server.connect(serverSide);
  const client = createLineClient((bytes) => clientSide.write(bytes));
  clientSide.onData((chunk) => client.push(chunk));
  try {
    const opened = await client.request(1, ServeMethod.Open, { extension: join(root, 'fixtures/extensions/stderr-flood.mjs') });
    const { sessionId } = opened.result as { sessionId: string };
    clientSide.pause();
    void client.request(2, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir: IR, target: 'echo', options: { stderrMib: 4 } } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = performance.now();
    clientSide.destroy();
    await connection.closed;
    assert.ok(performance.now() - started < 10_000, `closed after ${(performance.now() - started).toFixed(0)} ms`);
    assert.is(server.slotCount, 0);
  } finally {
    await server.close();
  }
});

Pace.run();
