import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createHostServer, type HostServer } from './host-server.ts';
import { listenHttp } from './http-node.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { serveStdio } from './serve-stdio.ts';
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

/** The answer to `id` among the lines of `text`. */
const answerTo = (text: string, id: number): { result?: unknown; error?: { code: number; data?: { localCode?: string } } } | undefined =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id?: unknown; result?: unknown; error?: { code: number } })
    .find((message) => message.id === id);

async function untilNoSession(server: HostServer): Promise<void> {
  for (let i = 0; server.sessionCount > 0 || server.slotCount > 0; i++) {
    if (i > 200) assert.unreachable('its session was not closed');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A server on a Unix socket, and a client of it with a session open; the server is closed after `body`. */
async function withOpenSession(body: (t: { server: HostServer; path: string; socket: Socket; all: Promise<string>; sessionId: string }) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-half-'));
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 500 });
  const listener = await listenUnixSocket(server, join(dir, 's.sock'));
  try {
    const socket = connect(listener.path);
    const client = createLineClient((bytes) => socket.write(bytes));
    socket.on('data', (chunk) => client.push(chunk));
    const all = received(socket);
    const { sessionId } = (await client.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
    await body({ server, path: listener.path, socket, all, sessionId });
  } finally {
    await listener.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const Half = suite('mep serve :: a client that half-closes (shuts its write side) gets its answers');

Half('over the socket: the call running at the half-close is answered, then its sessions are closed and the connection ends; others are served', () =>
  withOpenSession(async ({ server, path, socket, all, sessionId }) => {
    // Two calls and a server/info sent at once, then shutdown(SHUT_WR), as an HTTP/1.1 or LSP client may.
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: ServeMethod.Call, params: { sessionId, ...slow } })}\n`);
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: ServeMethod.Call, params: { sessionId, method: 'morphir.ping' } })}\n`);
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: ServeMethod.Info, params: {} })}\n`);
    socket.end();
    const text = await all;
    for (const id of [2, 3, 4]) assert.ok(answerTo(text, id)?.result !== undefined, `call ${id} answered: ${text.slice(0, 400)}`);
    await untilNoSession(server);
    const other = connect(path);
    const next = createLineClient((bytes) => other.write(bytes));
    other.on('data', (chunk) => next.push(chunk));
    assert.ok('result' in (await next.request(1, ServeMethod.Info, {})));
    other.destroy();
  }),
);

Half('over the socket: a half-closed client is held to each call deadline, and one that disconnects is not answered', () =>
  withOpenSession(async ({ server, path, socket, all, sessionId }) => {
    const endless = { ...slow, params: { ...slow.params, options: { delayMs: 60_000 } } };
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: ServeMethod.Call, params: { sessionId, ...endless, timeoutMs: 300 } })}\n`);
    socket.end();
    const answer = answerTo(await all, 2);
    assert.is(answer?.error?.data?.localCode, 'ERR_TIMEOUT', JSON.stringify(answer));
    await untilNoSession(server);

    const gone = connect(path);
    const goneClient = createLineClient((bytes) => gone.write(bytes));
    gone.on('data', (chunk) => goneClient.push(chunk));
    const opened = (await goneClient.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
    // A client gone altogether is an end of input too: the blank line written to see it still
    // reads fails, and its 60 s call is cancelled at once, not held to its deadline.
    gone.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: ServeMethod.Call, params: { sessionId: opened.sessionId, ...endless } })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    gone.destroy();
    await untilNoSession(server);
  }),
);

Half('over stdio: the end of stdin after the requests gets every answer, then mep serve ends', async () => {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 500 });
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const served = serveStdio(server, { input, output });
  const client = createLineClient((bytes) => input.write(bytes));
  output.on('data', (chunk: Buffer) => client.push(chunk));
  const { sessionId } = (await client.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
  input.end(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: ServeMethod.Call, params: { sessionId, ...slow } })}\n`);
  await served;
  assert.ok(answerTo(text, 2)?.result !== undefined, text.slice(0, 400));
});

/** Over HTTP `version`, a slow call (id 7) whose client half-closes after sending it whole: all the client received. */
async function halfClosedAnswer(port: number, version: '1.0' | '1.1'): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, ...slow });
  const socket = connect(port, '127.0.0.1');
  const all = received(socket);
  socket.write(`POST /extensions/echo HTTP/${version}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  socket.end();
  return all;
}

Half('over HTTP: a request whose client half-closes after sending it whole is answered, and the server goes on', async () => {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 500 });
  const listener = await listenHttp(server, { port: 0, extensions: { echo: wellBehaved } });
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, ...slow });
    const text = await halfClosedAnswer(listener.port, '1.1');
    // While its answer is pending the server probes the half-closed connection with interim
    // answers (a gone client fails the write), which an HTTP client skips before the final one.
    assert.match(text, /^(?:HTTP\/1\.1 102 Processing\r\n\r\n)*HTTP\/1\.1 200/, text.slice(0, 300));
    assert.match(text, /"id":7,"result"/);
    // Half-closed before its body is whole: dropped at once (Node's parser: 400 or nothing), never held.
    const cut = connect(listener.port, '127.0.0.1');
    const cutText = received(cut);
    cut.write(`POST /extensions/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
    cut.end();
    assert.not.match(await cutText, /"result"/);
    const answer = await fetch(`${listener.url}/extensions/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'morphir.ping' }) });
    assert.is(answer.status, 200);
  } finally {
    await listener.close();
  }
});

Half('over HTTP/1.0: a half-closed client is sent no interim answer, which HTTP/1.0 does not have, only its answer :: http10', async () => {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 500 });
  const listener = await listenHttp(server, { port: 0, extensions: { echo: wellBehaved } });
  try {
    // An HTTP/1.0 client takes the first status line for the answer: before, it was `102 Processing`.
    const text = await halfClosedAnswer(listener.port, '1.0');
    assert.match(text, /^HTTP\/1\.1 200 /, text.slice(0, 300));
    assert.match(text, /"id":7,"result"/);
  } finally {
    await listener.close();
  }
});

Half.run();
