/**
 * Answers HTTP clients do not read. An SSE stream was bounded (128 MiB unread, then dropped),
 * a plain JSON answer was not: each waited whole in the server until its client read it. Before
 * this bound, 30 connections on loopback each posting a 2.6 KB `morphir.backend.generate` for
 * 200,000 artifacts (`fixtures/extensions/many-artifacts.mjs`) and never reading took `mep serve
 * --http` from 98 MB to 1,503 MB RSS, and `--max-connections` (1,024) times `--max-message`
 * (64 MiB) is 64 GiB.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const many = join(root, 'fixtures/extensions/many-artifacts.mjs');
const streamer = join(root, 'fixtures/extensions/artifact-stream.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const MiB = 1024 * 1024;
/** About 62 bytes an artifact: 150,000 make an answer of about 10 MB. */
const generate = (count: number): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count } } });

/** Posts `body` on a raw connection, waits for the answer's first bytes, then stops reading. */
async function postAndStopReading(port: number, body: string, route = 'many', headers: Record<string, string> = {}): Promise<{ socket: Socket; first: Buffer }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`POST /extensions/${route} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const first = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
  socket.pause();
  return { socket, first };
}

/** The end of a chunked HTTP/1.1 body: the answer is whole, and a kept-alive connection stays open after it. */
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');

/**
 * Resumes `socket` and reads until the server closes it, its chunked answer ends (a whole answer:
 * waiting `ms` more for a close that a kept-alive connection never makes is time lost), or `ms`
 * pass; the bytes after `first`.
 */
function readRest(socket: Socket, ms: number): Promise<{ bytes: number; closed: boolean }> {
  return new Promise((resolve) => {
    let bytes = 0;
    let tail = Buffer.alloc(0);
    const timer = setTimeout(() => resolve({ bytes, closed: false }), ms);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      tail = Buffer.concat([tail, chunk.subarray(-LAST_CHUNK.length)]).subarray(-LAST_CHUNK.length);
      if (tail.equals(LAST_CHUNK)) {
        clearTimeout(timer);
        resolve({ bytes, closed: false });
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ bytes, closed: true });
    });
    socket.resume();
  });
}

const contentLength = (head: Buffer): number => Number(/content-length: (\d+)/i.exec(head.toString('latin1'))?.[1]);

const Unread = suite('mep serve --http :: plain answers a client does not read');

Unread('should drop the oldest unread answer once unread answers pass maxPendingBytes, and deliver the newest to a client that reads it', async () => {
  const logs: string[] = [];
  const served = await startTestHttp({ many }, { maxPendingBytes: 1 * MiB }, (line) => logs.push(line));
  const { port } = served.listener;
  let idle: Socket | undefined;
  try {
    const stalled = await postAndStopReading(port, generate(150_000));
    idle = stalled.socket;
    const total = contentLength(stalled.first);
    assert.ok(total > 8 * MiB, `the answer is ${total} bytes`);
    // A second client's answer takes the unread answers past the bound: the oldest is dropped.
    const response = await fetch(`${served.listener.url}/extensions/many`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: generate(150_000) });
    assert.is(response.status, 200);
    const answer = (await response.json()) as { result?: { artifacts?: unknown[] } };
    assert.is(answer.result?.artifacts?.length, 150_000, 'the client that reads gets its whole answer');
    const rest = await readRest(stalled.socket, 10_000);
    assert.ok(rest.closed, 'the server closed the connection whose answer waited unread');
    const headerEnd = stalled.first.indexOf('\r\n\r\n') + 4;
    assert.ok(stalled.first.length - headerEnd + rest.bytes < total, `the unread answer was dropped, not kept whole (${rest.bytes} more bytes of ${total})`);
    assert.ok(logs.some((line) => /unread/.test(line) && /maxPendingBytes|1048576/.test(line)), logs.join('\n'));
  } finally {
    idle?.destroy();
    await served.close();
  }
});

Unread('should count finished event streams left unread with the answers, each under its own bound but together past it', async () => {
  const logs: string[] = [];
  // Each stream of 40 MiB ends under the per-stream bound of 48 MiB; two are past it together,
  // whatever the loopback connection's buffers took of each (up to about 10 MB).
  const served = await startTestHttp({ stream: streamer }, { maxPendingBytes: 48 * MiB }, (line) => logs.push(line));
  const { port } = served.listener;
  const sockets: Socket[] = [];
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count: 40, kib: 1024 } } });
    for (let i = 0; i < 2; i++) {
      const { socket } = await postAndStopReading(port, body, 'stream', { Accept: 'text/event-stream' });
      sockets.push(socket);
    }
    // Dropped once finished (the one waiting longest) or while still open (the slowest reader,
    // its call cancelled): on a loaded machine either comes first, and either may be the one cut.
    const drop = /answer was dropped|event stream was dropped/;
    for (let i = 0; i < 300 && !logs.some((line) => drop.test(line)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(logs.some((line) => drop.test(line)), `no unread stream was dropped: ${logs.join('\n')}`);
    const rests = await Promise.all(sockets.map((socket) => readRest(socket, 10_000)));
    const cut = rests.filter((rest) => rest.closed && rest.bytes < 40 * MiB);
    assert.is(cut.length, 1, `one stream was dropped, the other whole (${rests.map((rest) => `${rest.bytes} bytes read, ${rest.closed ? 'closed' : 'open'}`).join('; ')})`);
  } finally {
    for (const socket of sockets) socket.destroy();
    await served.close();
  }
});

/** Resumes `socket` and reads until `bytes` have come, the server closes it, or `ms` pass. */
function readAtLeast(socket: Socket, bytes: number, ms: number): Promise<{ bytes: number; closed: boolean }> {
  return new Promise((resolve) => {
    let read = 0;
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.pause();
      resolve({ bytes: read, closed });
    };
    const timer = setTimeout(() => finish(false), ms);
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= bytes) finish(false);
    });
    socket.once('close', () => finish(true));
    socket.resume();
  });
}

Unread('should bound the events of open streams left unread across the server, each under its own bound but together past it, and drop the slowest, not the server', async () => {
  const logs: string[] = [];
  // Four streams of 7 MiB that stay open (`hold`), each under the bound of 8 MiB alone; a
  // loopback connection takes up to about 4 MB of each, so together they hold 11 MiB or more.
  const served = await startTestHttp({ stream: streamer }, { maxPendingBytes: 8 * MiB }, (line) => logs.push(line));
  const { port } = served.listener;
  const sockets: Socket[] = [];
  const options = { count: 28, kib: 256, hold: true };
  const streamBytes = options.count * options.kib * 1024;
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options } });
    for (let i = 0; i < 4; i++) sockets.push((await postAndStopReading(port, body, 'stream', { Accept: 'text/event-stream' })).socket);
    const dropped = (): string[] => logs.filter((line) => /event stream was dropped/.test(line));
    for (let i = 0; i < 100 && dropped().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(dropped().length > 0, `no open stream was dropped: ${logs.join('\n')}`);
    assert.ok(dropped().every((line) => /across the server/.test(line) && /8388608/.test(line) && /cancelled/.test(line)), dropped().join('\n'));
    const cancel = await served.nextSent((m) => m.method === '$/cancelRequest');
    assert.ok(cancel, 'the dropped stream\'s call was cancelled');
    // The streams left are whole: a client that reads now gets every event written for it.
    const reads = await Promise.all(sockets.map((socket) => readAtLeast(socket, streamBytes, 10_000)));
    const cut = reads.filter((read) => read.closed);
    const whole = reads.filter((read) => !read.closed && read.bytes >= streamBytes);
    assert.ok(cut.length >= 1 && cut.length <= 3, `${cut.length} of 4 streams dropped`);
    assert.is(cut.length + whole.length, 4, reads.map((read) => `${read.bytes} bytes, ${read.closed ? 'closed' : 'open'}`).join('; '));
    // Another client that reads gets its whole stream.
    const response = await fetch(`${served.listener.url}/extensions/stream`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count: 8, kib: 256 } } }) });
    assert.match(await response.text(), /"streamedArtifacts":8/);
  } finally {
    for (const socket of sockets) socket.destroy();
    await served.close();
  }
});

Unread.run();
