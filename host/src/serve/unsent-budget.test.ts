import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createByteChannelPair } from './byte-channel.ts';
import { createHostServer, type HostServerOptions } from './host-server.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { createLineClient } from './testing/line-client.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const MiB = 1024 * 1024;
const irOf = (mib: number) => ({ formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }], pad: 'u'.repeat(mib * MiB) });

const Unsent = suite('mep serve :: unread answers over all socket clients');

Unsent('should drop the client holding the most unread answers once unread answers over all clients pass maxUnsentBytes, and serve a client that reads :: unsent', async () => {
  // Each connection was bounded alone (128 MiB), so clients that ask and never read held up to
  // 128 MiB each, 1,024 of them: 20 socket clients each leaving a 30 MB answer unread took the
  // server from 99 MB to 486 MB RSS.
  const logged: string[] = [];
  const options: Partial<HostServerOptions> = { maxPendingBytes: 5 * MiB, pauseAtBytes: 64 * 1024, maxUnsentBytes: 7 * MiB };
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000, ...options, log: (m) => logged.push(m) });
  const clients = Array.from({ length: 4 }, () => {
    const [serverSide, clientSide] = createByteChannelPair();
    const connection = server.connect(serverSide);
    const client = createLineClient((bytes) => clientSide.write(bytes));
    clientSide.onData((chunk) => client.push(chunk));
    const state = { gone: false };
    void connection.closed.then(() => (state.gone = true));
    return { client, clientSide, state };
  });
  try {
    const sessions = await Promise.all(clients.map(async ({ client }) => ((await client.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string }).sessionId));
    // Three clients stop reading and ask for 3 MiB answers each: 9 MiB unread over all, 3 each.
    for (let i = 0; i < 3; i++) {
      clients[i]!.clientSide.pause();
      void clients[i]!.client.request(2, ServeMethod.Call, { sessionId: sessions[i], method: 'morphir.backend.generate', params: { ir: irOf(3), target: 'echo' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const deadline = Date.now() + 10_000;
    while (clients.slice(0, 3).every((c) => !c.state.gone) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const dropped = clients.slice(0, 3).filter((c) => c.state.gone).length;
    assert.ok(dropped >= 1, `no client dropped; server log: ${logged.join(' | ')}`);
    assert.ok(dropped < 3, 'the clients within the bound keep their answers');
    assert.match(logged.join('\n'), /maxUnsentBytes/);
    // A client that reads is served.
    const reader = clients[3]!;
    const answer = await reader.client.request(2, ServeMethod.Call, { sessionId: sessions[3], method: 'morphir.backend.generate', params: { ir: irOf(1), target: 'echo' } });
    assert.ok('result' in answer, JSON.stringify(answer).slice(0, 200));
    assert.is(reader.state.gone, false);
  } finally {
    for (const { clientSide } of clients) clientSide.close();
    await server.close();
  }
});

Unsent.run();
