/**
 * Red team of `mep serve --http`'s memory for request bodies held at once: each body is bounded
 * by --max-message, and their sum by `maxBodiesBytes` (a parsed body costs up to ~20× its bytes:
 * 64 MiB of `[{},{},…]` is 1.4 GB of heap; before, any number were read and parsed at once).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBodyBudget } from './http-body-budget.ts';
import { postRpc, startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const pingBody = (id: number, pad = 0): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'morphir.ping', params: { pad: 'x'.repeat(pad) } });

/** A raw connection that sent `head` and `sent` (part of a body); `answer` resolves with what the server wrote. */
function post(port: number, body: string, sentBytes = body.length): { socket: Socket; answer: Promise<string>; rest(): void } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  const answer = new Promise<string>((resolve) => {
    socket.on('data', () => /\r\n\r\n[\s\S]*\}$/.test(received) && resolve(received));
    socket.once('close', () => resolve(received));
  });
  socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, sentBytes)}`);
  return { socket, answer, rest: () => socket.write(body.slice(sentBytes)) };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
setFlagsFromString('--expose-gc');
/** A full collection, as heap pressure would run one. */
const gc = runInNewContext('gc') as () => void;
const Bodies = suite('mep serve --http :: bodies held at once');

Bodies('should not read a body past maxBodiesBytes while others are held, and serve it once they are answered', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { maxBodyBytes: 4096, maxBodiesBytes: 8192, bodyTimeoutMs: 20_000 });
  const open: Socket[] = [];
  try {
    // A session is started and pooled first, so the third's answer needs no process start.
    assert.is((await postRpc(served.listener.url, pingBody(0))).status, 200);
    // Two clients each hold 3,000 of the 8,192 bytes, sending their bodies slowly (half now).
    const held = [post(served.listener.port, pingBody(1, 3000), 1000), post(served.listener.port, pingBody(2, 3000), 1000)];
    open.push(...held.map((h) => h.socket));
    await settle(300);
    // A third, whole at once: its 3,000 bytes do not fit; before, it was read and answered at once.
    const third = post(served.listener.port, pingBody(3, 3000));
    open.push(third.socket);
    const early = await Promise.race([third.answer, settle(1500).then(() => 'waiting')]);
    assert.is(early, 'waiting', `the third body was read while the budget was spent: ${early.slice(0, 80)}`);
    for (const h of held) h.rest();
    for (const h of [...held, third]) assert.match(await h.answer, /^HTTP\/1\.1 200 /);
    assert.ok(served.sent.filter((m) => m.method === 'morphir.ping').length >= 1);
  } finally {
    for (const socket of open) socket.destroy();
    await served.close();
  }
});

Bodies('should give a waiting body its turn in arrival order, and forget one whose client left', async () => {
  const budget = createBodyBudget(10);
  const leaving = new AbortController();
  const first = await budget.reserve(8, new AbortController().signal);
  let largeGranted = false;
  let smallGranted = false;
  const large = budget.reserve(9, new AbortController().signal).then((r) => ((largeGranted = true), r));
  const gone = budget.reserve(5, leaving.signal);
  // 1 byte would fit beside the 8 held, but it came after the 9 that waits: it does not pass it.
  const small = budget.reserve(1, new AbortController().signal).then((r) => ((smallGranted = true), r));
  leaving.abort();
  assert.is(await gone, undefined);
  await settle(10);
  assert.equal([largeGranted, smallGranted], [false, false]);
  first?.release();
  assert.ok(await large);
  const smallOne = await small;
  assert.is(budget.held, 10);
  // A chunked body reserved the largest body; once read, it keeps only its size.
  const chunked = budget.reserve(6, new AbortController().signal);
  await settle(10);
  smallOne?.shrink(0);
  assert.is(budget.held, 9);
  (await large)?.shrink(4);
  assert.ok(await chunked);
  assert.is(budget.held, 10);
});

Bodies('should answer /health while it parses a body of 600,000 empty objects, not after (CPU per body)', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const body = `[${'{},'.repeat(600_000)}{}]`;
    // All but the last byte first, so the whole body is read when the last one comes: only its parse is left.
    const hostile = post(served.listener.port, body, body.length - 1);
    await settle(500);
    const order: string[] = [];
    const answered = hostile.answer.then((text) => order.push(`body ${/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]}`));
    hostile.rest();
    await settle(20);
    const health = fetch(`${served.listener.url}/health`).then((response) => order.push(`health ${response.status}`));
    await Promise.all([answered, health]);
    // Before, one JSON.parse of the body held the event loop: /health waited for the body's answer.
    assert.equal(order, ['health 200', 'body 200']);
    assert.match(await hostile.answer, /"code":-32600/);
    hostile.socket.destroy();
  } finally {
    await served.close();
  }
});

Bodies('should give a body that waited past --body-timeout 503 busy with Retry-After, and one granted late its own --body-timeout to arrive (not Node\'s 408)', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { maxBodyBytes: 4096, maxBodiesBytes: 4096, headersTimeoutMs: 200, bodyTimeoutMs: 3000 });
  const open: Socket[] = [];
  try {
    assert.is((await postRpc(served.listener.url, pingBody(0))).status, 200);
    const ir = readFileSync(join(root, 'fixtures/mep/ir/business-terms.json'), 'utf8');
    // A holds 2,400 of the 4,096 bytes until its answer, 3.6 s later.
    const holder = post(served.listener.port, `{"jsonrpc":"2.0","id":1,"method":"morphir.backend.generate","params":{"ir":${ir},"target":"echo","options":{"delayMs":3600}}}`);
    open.push(holder.socket);
    await settle(100);
    // B does not fit and waits its 3 s for nothing: 503 busy, Retry-After.
    const refused = post(served.listener.port, pingBody(2, 3000));
    open.push(refused.socket);
    await settle(1400);
    // C does not fit either; it is let in when A is answered (3.6 s), then sends the rest of its
    // body 1.9 s later: within its own 3 s to arrive, but 4 s after its headers. Before, Node's
    // requestTimeout (headers + body timeouts, counted from the headers) answered it 408.
    const late = post(served.listener.port, pingBody(3, 3000), 1000);
    open.push(late.socket);
    const busy = await refused.answer;
    assert.match(busy, /^HTTP\/1\.1 503 /);
    assert.match(busy, /\r\nretry-after: 1\r\n/i);
    assert.match(busy, /"busy"/);
    assert.match(await holder.answer, /^HTTP\/1\.1 200 /);
    await settle(1900);
    late.rest();
    const answer = await late.answer;
    assert.match(answer, /^HTTP\/1\.1 200 [\s\S]*"ok":true/, answer.slice(0, 80));
  } finally {
    for (const socket of open) socket.destroy();
    await served.close();
  }
});

Bodies('should give a waiting body 503 busy at --body-timeout even when the heap is collected while it waits (the wait timer is held by the request)', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { maxBodyBytes: 4096, maxBodiesBytes: 4096, bodyTimeoutMs: 1000 });
  const open: Socket[] = [];
  try {
    assert.is((await postRpc(served.listener.url, pingBody(0))).status, 200);
    const ir = readFileSync(join(root, 'fixtures/mep/ir/business-terms.json'), 'utf8');
    // A holds 2,400 of the 4,096 bytes until its answer, 2.5 s later.
    const holder = post(served.listener.port, `{"jsonrpc":"2.0","id":1,"method":"morphir.backend.generate","params":{"ir":${ir},"target":"echo","options":{"delayMs":2500}}}`);
    open.push(holder.socket);
    await settle(100);
    // B does not fit; while it waits, the heap is collected. Before, its wait timer was an
    // AbortSignal.timeout inside AbortSignal.any, held weakly: collected, it never fired, and B
    // was let in when A's answer freed the budget (200 after 2.5 s), never told it was busy.
    const waiting = post(served.listener.port, pingBody(2, 3000));
    open.push(waiting.socket);
    let answered = false;
    void waiting.answer.then(() => (answered = true));
    for (let i = 0; i < 50 && !answered; i++) {
      gc();
      await settle(50);
    }
    const answer = await waiting.answer;
    assert.match(answer, /^HTTP\/1\.1 503 /, answer.slice(0, 80));
    assert.match(answer, /"busy"/);
  } finally {
    for (const socket of open) socket.destroy();
    await served.close();
  }
});

Bodies.run();
