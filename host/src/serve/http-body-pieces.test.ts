/**
 * Red team of `mep serve --http`'s CPU and heap per request-body byte: a chunked body of 1-byte
 * chunks (`1\r\n \r\n`, 6 bytes on the wire each) made Node.js hand the server one Buffer per
 * byte, each kept until the body ended: 64 MiB of them held about 64 million objects.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.ping' });

/** Posts `chunks` as a chunked body on a raw connection; resolves with what the server wrote before it closed. */
function postChunked(port: number, chunks: readonly string[]): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (data) => (received += data.toString('latin1')));
  socket.on('error', () => undefined);
  const body = chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('');
  socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body}0\r\n\r\n`);
  return new Promise((resolve) => {
    socket.on('data', () => /\r\n\r\n[\s\S]*\}$/.test(received) && (socket.destroy(), resolve(received)));
    socket.once('close', () => resolve(received));
  });
}

const Pieces = suite('mep serve --http :: CPU and heap per body byte');

Pieces('should refuse a chunked body sent in thousands of 1-byte chunks with 400 fragmented-body, and serve one in a few chunks :: hostile', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const tiny = await postChunked(served.listener.port, [...Array.from({ length: 20_000 }, () => ' '), ping]);
    assert.match(tiny, /^HTTP\/1\.1 400 /);
    assert.match(tiny, /"code":"fragmented-body"/);
    const whole = await postChunked(served.listener.port, [' '.repeat(100), ping.slice(0, 10), ping.slice(10)]);
    assert.match(whole, /^HTTP\/1\.1 200 /);
  } finally {
    await served.close();
  }
});

Pieces.run();
