import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostServer } from './host-server.ts';
import { listenHttp } from './http-node.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { createLineClient } from './testing/line-client.ts';
import { listenUnixSocket } from './unix-socket.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const slow = { method: 'morphir.backend.generate', params: { ir: { formatVersion: 3 }, target: 'echo', options: { delayMs: 600 } } };

/** Everything `socket` receives until it is closed. */
const received = (socket: Socket): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('close', () => resolve(text));
  });

const Half = suite('mep serve :: a client that half-closes (shuts its write side)');

Half('over the socket: the client counts as gone, its running call is not answered, its sessions are closed, others are served', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-half-'));
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 500 });
  const listener = await listenUnixSocket(server, join(dir, 's.sock'));
  try {
    const socket = connect(listener.path);
    const client = createLineClient((bytes) => socket.write(bytes));
    socket.on('data', (chunk) => client.push(chunk));
    const all = received(socket);
    const { sessionId } = (await client.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: ServeMethod.Call, params: { sessionId, ...slow } })}\n`);
    socket.end();
    const text = await all;
    assert.not.match(text, /"id":2\b/, 'the call running at the half-close is not answered');
    for (let i = 0; server.sessionCount > 0 || server.slotCount > 0; i++) {
      if (i > 200) assert.unreachable('its session was not closed');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const other = connect(listener.path);
    const next = createLineClient((bytes) => other.write(bytes));
    other.on('data', (chunk) => next.push(chunk));
    assert.ok('result' in (await next.request(1, ServeMethod.Info, {})));
    other.destroy();
  } finally {
    await listener.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Half('over HTTP: a request whose client half-closes after sending it whole is not answered, and the server goes on', async () => {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 500 });
  const listener = await listenHttp(server, { port: 0, extensions: { echo: wellBehaved } });
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, ...slow });
    const socket = connect(listener.port, '127.0.0.1');
    const all = received(socket);
    socket.write(`POST /extensions/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    socket.end();
    assert.is(await all, '', 'nothing is written to a client that shut its side');
    const answer = await fetch(`${listener.url}/extensions/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'morphir.ping' }) });
    assert.is(answer.status, 200);
  } finally {
    await listener.close();
  }
});

Half.run();
