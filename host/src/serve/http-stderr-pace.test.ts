/**
 * Red team of `mep serve --http`'s pooled sessions (issue 31): a process extension's stderr,
 * written during a streamed call, was read as fast as it came and sent to the SSE client as
 * `morphir.log` events, paced by nothing: a client reading slower than the extension wrote passed
 * the server's unread bound and was dropped, its call cancelled, for logs it never asked for (the
 * socket server paces stderr to its client: stderr-pace.test.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const MiB = 1024 * 1024;
const Pace = suite('mep serve --http :: a pooled extension’s stderr, paced to its SSE client');

Pace('should hold an extension flooding stderr while its SSE client reads slowly, not drop the client, and deliver its log once it reads :: stderr', async () => {
  const served = await startTestHttp({ flood: join(root, 'fixtures/extensions/stderr-flood.mjs') }, { maxPendingBytes: 2 * MiB, pauseAtBytes: 256 * 1024 });
  try {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'morphir.backend.generate', params: { ir: { formatVersion: 3, distribution: ['Library', [], [], { modules: [] }] }, target: 'echo', options: { stderrMib: 24 } } });
    const socket = connect(served.listener.port, '127.0.0.1');
    let received = 0;
    let tail = '';
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      tail = (tail + chunk.toString('latin1')).slice(-4096);
    });
    socket.write(`POST /extensions/flood HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The client stops reading for 2 s while the extension writes 24 MiB of stderr, twelve times the bound.
    socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    socket.resume();
    const done = await Promise.race([
      new Promise<boolean>((resolve) => socket.on('data', () => /"id":7,"result"/.test(tail) && resolve(true))),
      closed.then(() => /"id":7,"result"/.test(tail)),
    ]);
    // Before, the server dropped the stream past 2 MiB unread: no answer, the call cancelled.
    assert.ok(done, `no answer; the stream ended after ${received} bytes: ${tail.slice(-300)}`);
    assert.ok(received >= 24 * MiB, `${received} bytes of events delivered`);
    socket.destroy();
  } finally {
    await served.close();
  }
});

Pace.run();
