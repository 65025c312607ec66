/**
 * The send timeout (send-timeout.ts): a client that takes none of what waits for it for
 * `sendTimeoutMs` loses its connection and what it held; one that reads slowly but steadily keeps
 * it. Before, nothing timed a client's reading: one that read a byte a second, or stopped, kept
 * its connection, its unsent answer (up to the unread bounds, shared by all) and, over the
 * socket daemon, its sessions' slots, for as long as it liked.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostServer } from './host-server.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { startTestHttp } from './testing/http.ts';
import { createLineClient } from './testing/line-client.ts';
import { listenUnixSocket } from './unix-socket.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const many = join(root, 'fixtures/extensions/many-artifacts.mjs');
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
/** About 62 bytes an artifact: 150,000 make an answer of about 10 MB, more than loopback's socket buffers hold. */
const generate = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count: 150_000 } } });
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds, at most `ms`; whether it did. */
async function until(done: () => boolean, ms = 20_000): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!done() && performance.now() < deadline) await settle(20);
  return done();
}

/** Posts the 10 MB answer's request on a raw connection; resolves with the answer's head once its first bytes came. */
async function post(port: number): Promise<{ socket: Socket; first: Buffer }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // the server may reset it: that is the point
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`POST /extensions/many HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(generate)}\r\n\r\n${generate}`);
  const first = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
  socket.pause();
  return { socket, first };
}

const contentLength = (head: Buffer): number => Number(/content-length: (\d+)/i.exec(head.toString('latin1'))?.[1]);
const bodyOf = (head: Buffer): number => head.length - head.indexOf('\r\n\r\n') - 4;

/** Reads `socket` to its end (or `ms`); the bytes read and whether it closed. */
function drain(socket: Socket, ms: number): Promise<{ bytes: number; closed: boolean }> {
  return new Promise((resolve) => {
    let bytes = 0;
    const timer = setTimeout(() => resolve({ bytes, closed: false }), ms);
    socket.on('data', (chunk: Buffer) => void (bytes += chunk.length));
    socket.once('close', () => (clearTimeout(timer), resolve({ bytes, closed: true })));
    socket.resume();
  });
}

const streamer = join(root, 'fixtures/extensions/artifact-stream.mjs');

const Send = suite('mep serve :: --send-timeout');

Send('should end an HTTP connection whose client takes none of its answer for sendTimeoutMs, let go of its bytes, and serve another client', async () => {
  const logged: string[] = [];
  // One connection per client: the next request gets in only once the stalled one is gone.
  const served = await startTestHttp({ many }, { sendTimeoutMs: 300, maxConnections: 8, maxConnectionsPerClient: 1 }, (line) => logged.push(line));
  try {
    const { socket, first } = await post(served.listener.port);
    assert.ok(await until(() => logged.some((line) => line.includes('--send-timeout'))), `the stalled connection was ended: ${JSON.stringify(logged)}`);
    const cut = /The HTTP client at 127\.0\.0\.1 took none of the (\d+) bytes waiting for it for 300 ms/.exec(logged.find((line) => line.includes('--send-timeout')) as string);
    assert.ok(Number(cut?.[1]) > 1024 * 1024, `the server held the unread answer until then: ${JSON.stringify(logged)}`);
    assert.ok(await until(() => served.listener.unsentBytes === 0, 5_000), `its bytes were let go (${served.listener.unsentBytes} held)`);
    const rest = await drain(socket, 10_000);
    assert.ok(rest.closed, 'the stalled client sees its connection end');
    assert.ok(bodyOf(first) + rest.bytes < contentLength(first), 'and only part of its answer');
    // Only after its end is seen: the server counts a connection until its socket closed, and a
    // fetch at once could still meet the share of 1 (CI, 2026-12-05: "fetch failed").
    const health = await fetch(`${served.listener.url}/health`);
    assert.is(health.status, 200, 'another connection of the same client is served');
    await health.text();
  } finally {
    await served.close();
  }
});

Send('should end an event stream whose client takes none of its events for sendTimeoutMs, and cancel its call', async () => {
  const logged: string[] = [];
  const served = await startTestHttp({ streamer }, { sendTimeoutMs: 300 }, (line) => logged.push(line));
  const socket = connect(served.listener.port, '127.0.0.1');
  socket.on('error', () => undefined);
  try {
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    // 32 artifacts of 1 MiB, the call held open after them: a stream that stays open.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count: 32, kib: 1024, hold: true } } });
    socket.write(`POST /extensions/streamer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await new Promise((resolve) => socket.once('data', resolve));
    socket.pause();
    assert.ok(await until(() => logged.some((line) => line.includes('--send-timeout'))), `the stalled stream was ended: ${JSON.stringify(logged)}`);
    await served.nextSent((message) => (message as { method?: string }).method === '$/cancelRequest');
    assert.ok(await until(() => served.listener.unsentBytes === 0, 5_000), `its bytes were let go (${served.listener.unsentBytes} held)`);
  } finally {
    socket.destroy();
    await served.close();
  }
});

Send('should not cut an HTTP client that reads its answer slowly but steadily', async () => {
  const logged: string[] = [];
  const served = await startTestHttp({ many }, { sendTimeoutMs: 3_000 }, (line) => logged.push(line));
  try {
    const { socket, first } = await post(served.listener.port);
    let bytes = bodyOf(first);
    let closed = false;
    socket.once('close', () => (closed = true));
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      socket.pause();
    });
    // One read (up to 64 KiB) every 20 ms: at most 3 MB/s, far slower than the server writes. The
    // server sees progress only as its socket frees (a third of its send buffer at a time, about
    // 1.4 MB on loopback): half a second apart at this pace.
    const total = contentLength(first);
    while (!closed && bytes < total) {
      await settle(20);
      socket.resume();
    }
    assert.is(bytes, total, `the whole answer arrived (${bytes} of ${total}): ${JSON.stringify(logged)}`);
    assert.not.ok(logged.some((line) => line.includes('--send-timeout')), JSON.stringify(logged));
    socket.destroy();
  } finally {
    await served.close();
  }
});

Send('should end a socket connection that takes none of its answers for sendTimeoutMs, close its session, and serve another client', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-send-'));
  const logged: string[] = [];
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000, log: (message) => logged.push(message) });
  // One connection at a time: the next client gets in only once the stalled one is gone.
  const listener = await listenUnixSocket(server, join(dir, 'mep.sock'), { sendTimeoutMs: 300, maxConnections: 1 });
  // Destroyed before the listener closes: closing waits for a connection's answers to be taken.
  const socket = connect(listener.path);
  try {
    socket.on('error', () => undefined);
    const hog = createLineClient((bytes) => socket.write(bytes));
    socket.on('data', (chunk) => hog.push(chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    const { sessionId } = (await hog.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
    assert.is(server.slotCount, 1);
    socket.pause(); // from now on it never reads
    const padded = { ...ir, padding: 'x'.repeat(1024 * 1024) };
    for (let id = 2; id < 8; id++) void hog.request(id, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir: padded, target: 'echo', options: {} } });
    assert.ok(await until(() => logged.some((line) => line.includes('--send-timeout'))), `the stalled connection was ended: ${JSON.stringify(logged)}`);
    const cut = /mep\.sock#1 took none of the (\d+) bytes of answers waiting for it for 300 ms/.exec(logged.find((line) => line.includes('--send-timeout')) as string);
    assert.ok(Number(cut?.[1]) > 1024 * 1024, `the server held the unread answers until then: ${JSON.stringify(logged)}`);
    assert.ok(await until(() => listener.unsentBytes === 0 && server.slotCount === 0, 10_000), `its bytes (${listener.unsentBytes}) and its session's slot (${server.slotCount}) were let go`);
    const next = connect(listener.path);
    const client = createLineClient((bytes) => next.write(bytes));
    next.on('data', (chunk) => client.push(chunk));
    assert.ok('result' in (await client.request(1, ServeMethod.Info)), 'another client is served');
    next.destroy();
  } finally {
    socket.destroy();
    await listener.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Send.run();
