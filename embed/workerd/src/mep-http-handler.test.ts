import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { builtHostileGuest, hostileIr } from '../../testing/hostile-guest.ts';
import { createMepHttpHandler } from './mep-http-handler.ts';

/**
 * The handler's refusals, run here on Node's own fetch `Request` (the worker's): each is decided
 * before a session exists, so the module is never instantiated (an empty one stands for it).
 */
const EMPTY_MODULE = new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
const TOKEN = 'the-workers-secret-binding-0123';
const URL_ = 'http://worker.example/extensions/avro';
const ping = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'morphir.ping' });

function post(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request(URL_, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, ...({ duplex: 'half' } as object) });
}

const Edge = suite('embed/workerd :: the MEP HTTP handler, hostile requests');

Edge('should answer 401 without the token or with a forged one, and 403 to a browser origin, before reading the body', async () => {
  const handle = createMepHttpHandler({ module: EMPTY_MODULE, name: 'avro', token: TOKEN });
  for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`]) {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new TextEncoder().encode(ping)), c.close()) }, { highWaterMark: 0 });
    const response = await handle(post(body, authorization ? { authorization } : {}));
    assert.is(response?.status, 401, String(authorization));
    assert.is(response?.headers.get('www-authenticate'), 'Bearer realm="mep"');
    assert.is(pulled, 0, 'the body was read before the token was checked');
  }
  assert.is((await handle(post(ping, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' })))?.status, 403);
  assert.equal(await (await handle(new Request('http://worker.example/health')))?.json(), { status: 'ok' });
});

Edge('should answer 413 to a body past maxBodyBytes, declared or chunked, reading no more of a chunked one than the bound', async () => {
  const handle = createMepHttpHandler({ module: EMPTY_MODULE, name: 'avro', maxBodyBytes: 1024 });
  assert.is((await handle(post('x'.repeat(2048))))?.status, 413);
  // A chunked body of 1 MiB in 1 KiB chunks, with no length declared: refused after the bound, not read to its end.
  let pulled = 0;
  const chunk = new Uint8Array(1024).fill(0x20);
  const endless = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++ < 1024 ? c.enqueue(chunk) : c.close()) }, { highWaterMark: 0 });
  const response = await handle(post(endless));
  assert.is(response?.status, 413);
  assert.ok(pulled < 16, `read ${pulled} chunks of a body past the bound`);
  assert.is((await handle(post(ping, { 'content-type': 'text/plain' })))?.status, 415);
});

Edge.run();

const Slow = suite('embed/workerd :: the MEP HTTP handler, a client that does not read its event stream');

Slow('should drop an SSE stream its client leaves unread past maxUnsentBytes, cancelling its call, not hold every event', async () => {
  const module = new WebAssembly.Module(readFileSync(await builtHostileGuest()));
  const handle = createMepHttpHandler({ module, name: 'avro', maxUnsentBytes: 256 * 1024 });
  const generate = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir: JSON.parse(hostileIr({ progress: 2_000 })), target: 't', options: {} } });
  const response = await handle(post(generate, { accept: 'text/event-stream' }));
  assert.is(response?.status, 200);
  // The guest reports 2 MB of progress while nothing is read; then the client reads.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const reader = response!.body!.getReader();
  let read = 0;
  let error: unknown;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
    }
  } catch (caught) {
    error = caught;
  }
  assert.ok(error !== undefined, `the stream ended normally after ${read} bytes held for a client that read none`);
  assert.match(String((error as Error).message), /maxUnsentBytes/);
  assert.ok(read <= 256 * 1024, `${read} bytes held`);
});

Slow.run();
