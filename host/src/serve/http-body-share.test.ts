/**
 * A share of the request-body budget per client: `--max-bodies` bounded the bodies held at once
 * over all clients, and a chunked body reserves the largest body (`--max-message`) before a byte
 * of it arrives, so one client sending chunked heads and nothing more held the whole budget, and
 * kept it with heads waiting ahead of every other client's: their bodies waited unread, then 503
 * busy, for as long as it went on.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBodyBudget } from './http-body-budget.ts';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'morphir.ping' });

/** Sends `text` on a new connection from `from`; resolves with what was answered once it closes or the answer is whole. */
function send(port: number, from: string, text: string): { socket: Socket; answer: Promise<string> } {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  let received = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (/\r\n\r\n[\s\S]*\}$/.test(received)) resolve(received);
    });
    socket.on('close', () => resolve(received));
  });
  socket.on('error', () => undefined);
  socket.once('connect', () => socket.write(text));
  return { socket, answer };
}

const Share = suite('mep serve --http :: a share of the body budget per client');

Share('should hold one client to its share of --max-bodies, so another client\'s body is read and answered :: bodies', async () => {
  // Room for two bodies of the largest size; a client's share is one of them.
  const served = await startTestHttp({ echo: wellBehaved }, { maxBodyBytes: 1024, maxBodiesBytes: 2048, bodyTimeoutMs: 1_500 });
  const open: Socket[] = [];
  try {
    // Client A (127.0.0.1): four chunked heads, no chunk: each reserves the largest body; two hold the
    // budget and two wait ahead of B, to be let in when the first two reach --body-timeout.
    for (let i = 0; i < 4; i++) open.push(send(served.listener.port, '127.0.0.1', 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n').socket);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Client B (127.0.0.2): a whole small body. Before, it waited for the budget and was answered 503 busy.
    const other = send(served.listener.port, '127.0.0.2', `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${ping.length}\r\n\r\n${ping}`);
    open.push(other.socket);
    assert.match(await other.answer, /^HTTP\/1\.1 200 [\s\S]*"result":\{"ok":true\}/);
  } finally {
    for (const socket of open) socket.destroy();
    await served.close();
  }
});

Share('should let a waiting body of another client pass one held back by its own client\'s share, in arrival order otherwise :: bodies', async () => {
  const budget = createBodyBudget(10, 4);
  const never = new AbortController().signal;
  const a1 = await budget.reserve(4, never, 'a');
  const order: string[] = [];
  // A's second waits for A's share; B's, behind it, fits the budget and B's share: it goes first.
  const a2 = budget.reserve(2, never, 'a').then((r) => (order.push('a2'), r));
  const b1 = budget.reserve(4, never, 'b').then((r) => (order.push('b1'), r));
  await b1;
  assert.equal(order, ['b1']);
  // C's body does not fit the total (4 + 4 + 4 > 10): it waits, and bodies after it wait behind it.
  const c1 = budget.reserve(4, never, 'c').then((r) => (order.push('c1'), r));
  const d1 = budget.reserve(1, never, 'd').then((r) => (order.push('d1'), r));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(order, ['b1']);
  a1?.release();
  await Promise.all([a2, c1]);
  assert.equal(order, ['b1', 'a2', 'c1']);
  (await b1)?.release();
  await d1;
  assert.equal(order, ['b1', 'a2', 'c1', 'd1']);
  assert.is(budget.held, 2 + 4 + 1);
});

Share.run();
