/**
 * Requests pipelined on one HTTP/1.1 connection. Node's parser starts a handler for each request
 * it parses, and pauses a connection only when its *outgoing* data is large; a request that waits
 * without writing (for the body budget, a session) wrote nothing. Before the bound, with the body
 * budget held by another connection, 20,000 `morphir.ping` POSTs pipelined on one connection that
 * did not read started 20,002 handlers and took the heap +111 MB (about 5.5 KB each), 100,000
 * still growing past 55,000 handlers and +310 MB after 5 s.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_LIMITS } from './http-routes.ts';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const post = (body: string): string => `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const ping = (id: number): string => post(JSON.stringify({ jsonrpc: '2.0', id, method: 'morphir.ping' }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `count()` has not changed for 200 ms (or 1.5 s in all). */
async function settled(count: () => number): Promise<number> {
  let last = -1;
  for (let waited = 0; waited < 1_500 && count() !== last; waited += 200) {
    last = count();
    await sleep(200);
  }
  return count();
}

const Pipeline = suite('mep serve --http :: pipelined requests');

Pipeline('should read no further on a connection with HTTP_LIMITS.maxPipelined requests in flight, and answer every pipelined request in order once they finish', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { maxBodyBytes: 1024, maxBodiesBytes: 1024 });
  const sockets: Socket[] = [];
  // Requests Node parsed (handlers started), on any connection: the channel is left when the test ends.
  let parsed = 0;
  const onRequest = (): void => void parsed++;
  subscribe('http.server.request.start', onRequest);
  try {
    // The body budget held: a request declaring the largest body, sent no further.
    const holder = connect(served.listener.port, '127.0.0.1');
    sockets.push(holder);
    holder.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1024\r\n\r\n{`);
    await settled(() => parsed);
    assert.is(parsed, 1);

    const first = HTTP_LIMITS.maxPipelined + 4;
    const count = first + 24;
    const client = connect(served.listener.port, '127.0.0.1');
    sockets.push(client);
    let received = '';
    client.on('data', (chunk) => (received += chunk.toString('latin1')));
    client.pause();
    const pings = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, index) => ping(from + index)).join('');
    // One write past the limit (parsed in the read that holds it), then, once it is in, the rest.
    client.write(pings(1, first));
    const read = (await settled(() => parsed)) - 1;
    assert.ok(read > HTTP_LIMITS.maxPipelined, `${read} requests parsed of ${first} sent`);
    client.write(pings(first + 1, count));
    const waiting = (await settled(() => parsed)) - 1;
    assert.is(waiting, read, `${waiting} of ${count} pipelined requests were parsed while the first ${HTTP_LIMITS.maxPipelined} waited`);

    // The budget freed: every request is answered, in the order sent.
    holder.destroy();
    client.resume();
    for (let waited = 0; waited < 15_000 && (received.match(/"id":\d+/g) ?? []).length < count; waited += 50) await sleep(50);
    const ids = (received.match(/"id":\d+/g) ?? []).map((match) => Number(match.slice(5)));
    assert.is(ids.length, count);
    assert.equal(ids, Array.from({ length: count }, (_, index) => index + 1));
  } finally {
    unsubscribe('http.server.request.start', onRequest);
    for (const socket of sockets) socket.destroy();
    await served.close();
  }
});

/** Opens a connection that holds the whole body budget: a request declaring the largest body, sent no further. */
async function holdBudget(port: number, sockets: Socket[], parsed: () => number): Promise<Socket> {
  const holder = connect(port, '127.0.0.1');
  sockets.push(holder);
  holder.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1024\r\n\r\n{`);
  await settled(parsed);
  return holder;
}

Pipeline('should not let the headers timeout cut a head that arrived while the server held the connection, and bound that head once reading resumes', async () => {
  const headersTimeoutMs = 300;
  const served = await startTestHttp({ echo: wellBehaved }, { maxBodyBytes: 1024, maxBodiesBytes: 1024, headersTimeoutMs, bodyTimeoutMs: 10_000 });
  const sockets: Socket[] = [];
  let parsed = 0;
  const onRequest = (): void => void parsed++;
  subscribe('http.server.request.start', onRequest);
  try {
    const count = HTTP_LIMITS.maxPipelined + 2;
    const last = ping(count);
    const cut = last.indexOf('\r\n') + 2;
    // The pause lands inside the last request's head: every request before it in one write, and
    // the first line of its head with them.
    const open = async (): Promise<{ client: Socket; received: () => string; closed: Promise<void> }> => {
      const client = connect(served.listener.port, '127.0.0.1');
      sockets.push(client);
      let received = '';
      client.on('data', (chunk) => (received += chunk.toString('latin1')));
      const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
      client.write(Array.from({ length: count - 1 }, (_, index) => ping(index + 1)).join('') + last.slice(0, cut));
      return { client, received: () => received, closed };
    };

    // An honest client: held for several headers timeouts by the server, it sends the rest of
    // its head once it is read again, and every request is answered in order.
    let holder = await holdBudget(served.listener.port, sockets, () => parsed);
    const honest = await open();
    await sleep(headersTimeoutMs * 4);
    assert.not.match(honest.received(), /408/, 'no 408 while the server held the connection');
    holder.destroy();
    await sleep(100);
    honest.client.write(last.slice(cut));
    for (let waited = 0; waited < 15_000 && (honest.received().match(/"id":\d+/g) ?? []).length < count; waited += 50) await sleep(50);
    assert.equal((honest.received().match(/"id":\d+/g) ?? []).map((match) => Number(match.slice(5))), Array.from({ length: count }, (_, index) => index + 1));
    honest.client.destroy();

    // A client that never finishes the head: once reading resumes, the headers timeout runs again.
    parsed = 0;
    holder = await holdBudget(served.listener.port, sockets, () => parsed);
    const stalled = await open();
    await sleep(headersTimeoutMs * 4);
    holder.destroy();
    const outcome = await Promise.race([stalled.closed.then(() => 'closed'), sleep(5_000).then(() => 'open')]);
    assert.is(outcome, 'closed', 'the unfinished head was cut off after reading resumed');
    assert.match(stalled.received(), /HTTP\/1\.1 408 /);
    // Answers still being written when it was cut off are lost with it, as with Node's own 408; those written came in order.
    const answered = (stalled.received().match(/"id":\d+/g) ?? []).map((match) => Number(match.slice(5)));
    assert.equal(answered, Array.from({ length: answered.length }, (_, index) => index + 1));
  } finally {
    unsubscribe('http.server.request.start', onRequest);
    for (const socket of sockets) socket.destroy();
    await served.close();
  }
});

Pipeline.run();
