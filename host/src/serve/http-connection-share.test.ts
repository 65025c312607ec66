/**
 * A share of the connections per client: `--max-connections` bounded them all together, so one
 * address, before any token, held every one of them (unfinished heads, renewed each
 * `--headers-timeout`) and every other client, token holders included, was closed unanswered.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'morphir.ping' });

/** Opens a connection from the loopback address `from` and sends an unfinished head; resolves once it is written. */
function holdFrom(port: number, from: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n', () => resolve(socket)));
  });
}

/** Sends a whole ping from `from`; resolves with what was answered before the connection closed, '' when closed unanswered. */
function pingFrom(port: number, from: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (received.includes('"id":9')) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.once('connect', () => socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${ping.length}\r\n\r\n${ping}`));
  });
}

const Share = suite('mep serve --http :: a share of the connections per client');

Share('should close one client\'s connections past its share unanswered, and still serve another client :: connections', async () => {
  const logged: string[] = [];
  const served = await startTestHttp({ echo: wellBehaved }, { maxConnections: 8, maxConnectionsPerClient: 2, headersTimeoutMs: 60_000 }, (line) => logged.push(line));
  const held: Socket[] = [];
  try {
    // Client A (127.0.0.1), without a token, asks for every connection of the server.
    for (let i = 0; i < 8; i++) held.push(await holdFrom(served.listener.port, '127.0.0.1'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Client B (127.0.0.2) is served (before, it was closed unanswered).
    assert.match(await pingFrom(served.listener.port, '127.0.0.2'), /^HTTP\/1\.1 200 [\s\S]*"result":\{"ok":true\}/);
    assert.is(held.filter((socket) => !socket.destroyed && !socket.readableEnded).length, 2, 'A holds its share, no more');
    // A third connection of A's is closed unanswered, and the log says why, naming the flag.
    assert.is(await pingFrom(served.listener.port, '127.0.0.1'), '');
    assert.ok(logged.some((line) => /127\.0\.0\.1.*--max-connections-per-client/.test(line)), logged.join('\n'));
  } finally {
    for (const socket of held) socket.destroy();
    await served.close();
  }
});

Share('should take a share of --max-connections or more as no share :: connections', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { maxConnections: 4, maxConnectionsPerClient: 4, headersTimeoutMs: 60_000 });
  const held: Socket[] = [];
  try {
    for (let i = 0; i < 3; i++) held.push(await holdFrom(served.listener.port, '127.0.0.1'));
    assert.match(await pingFrom(served.listener.port, '127.0.0.1'), /^HTTP\/1\.1 200 /);
  } finally {
    for (const socket of held) socket.destroy();
    await served.close();
  }
});

Share.run();
