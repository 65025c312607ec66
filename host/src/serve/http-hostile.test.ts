import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { createHostServer } from './host-server.ts';
import { listenHttp } from './http-node.ts';
import { createNodeOpener } from './node-open.ts';
import { postRpc, startTestHttp, type TestHttpServer } from './testing/http.ts';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'morphir.ping' });
const TOKEN = 'a-token-of-thirty-two-characters';

/** Sends `text` on a raw connection; resolves with everything the server wrote before it closed. */
function raw(port: number, text: string, keepOpenMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.once('close', () => resolve(received));
    socket.once('error', (error) => (received ? resolve(received) : reject(error)));
    socket.write(text);
    if (keepOpenMs === 0) socket.end();
  });
}

async function withServer(options: Parameters<typeof startTestHttp>[1], run: (served: TestHttpServer) => Promise<void>): Promise<void> {
  const served = await startTestHttp({ echo: wellBehaved }, options);
  try {
    await run(served);
  } finally {
    await served.close();
  }
}

const Limits = suite('mep serve --http :: hostile requests');

Limits('should answer 413 to a body past the limit, declared or chunked, before it reaches an extension', () =>
  withServer({ maxBodyBytes: 1024 }, async ({ listener, sent }) => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'morphir.ping', params: { pad: 'x'.repeat(4096) } });
    assert.is((await postRpc(listener.url, big).catch(() => ({ status: 413 }))).status, 413);
    const chunked = await raw(listener.port, `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n${'x'.repeat(4096)}\r\n0\r\n\r\n`);
    assert.match(chunked, /^HTTP\/1\.1 413 /);
    assert.is(sent.length, 0);
  }),
);

Limits('should answer 408 and drop a body that trickles past --body-timeout', () =>
  withServer({ bodyTimeoutMs: 200 }, async ({ listener }) => {
    const reply = await raw(listener.port, 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":', 1);
    assert.match(reply, /^HTTP\/1\.1 408 /);
  }),
);

Limits('should answer 431 to a header flood and close a connection whose headers never end', () =>
  withServer({ headersTimeoutMs: 300 }, async ({ listener }) => {
    const flood = await raw(listener.port, `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Pad: y\r\n'.repeat(4000)}\r\n`, 1);
    assert.match(flood, /^HTTP\/1\.1 431 /);
    const slow = await raw(listener.port, 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n', 1);
    assert.match(slow, /^HTTP\/1\.1 408 /);
  }),
);

Limits('should answer 415 to a body that is not application/json or is compressed, 400 to one that is not JSON, 405 and 404 elsewhere', () =>
  withServer({}, async ({ listener }) => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const reply = await fetch(listener.url, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify(ping(0)) });
      assert.is(reply.status, 415, type);
    }
    // A compressed body: before, read as JSON and answered -32700 quoting its binary bytes.
    for (const encoding of ['gzip', 'deflate', 'br', 'gzip, identity']) {
      const reply = await fetch(listener.url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body: gzipSync(JSON.stringify(ping(0))) });
      assert.is(reply.status, 415, encoding);
      assert.match(await reply.text(), /"code":"unsupported-content-encoding".*uncompressed/, encoding);
    }
    assert.is((await postRpc(listener.url, ping(0), { 'content-encoding': 'identity' })).status, 200);
    const notJson = await postRpc(listener.url, '{"jsonrpc":');
    assert.is(notJson.status, 400);
    assert.is((notJson.body.error as { code: number }).code, ErrorCode.ParseError);
    const batch = await postRpc(listener.url, [ping(0)]);
    assert.is((batch.body.error as { code: number }).code, ErrorCode.InvalidRequest);
    assert.is((await fetch(listener.url, { method: 'PUT' })).status, 405);
    assert.is((await postRpc(`${listener.url}/extensions/..%2Fetc`, ping(0))).status, 404);
    assert.is((await postRpc(`${listener.url}/extensions/nope`, ping(0))).status, 404);
  }),
);

Limits('should refuse a browser origin and a foreign Host with 403, and accept an allowed origin', () =>
  withServer({ allowOrigins: ['http://localhost:3000'] }, async ({ listener }) => {
    assert.is((await postRpc(listener.url, ping(0), { origin: 'http://evil.example' })).status, 403);
    assert.is((await postRpc(listener.url, ping(0), { origin: 'http://localhost:3000' })).status, 200);
    // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends Host: evil.example.
    const rebound = await raw(listener.port, `POST / HTTP/1.1\r\nHost: evil.example:${listener.port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    assert.match(rebound, /^HTTP\/1\.1 403 /);
  }),
);

Limits('should drop connections past --max-connections, however slowly they send, and serve again once they are gone', () =>
  withServer({ maxConnections: 8, maxConnectionsPerClient: 8, headersTimeoutMs: 60_000 }, async ({ listener }) => {
    // Slowloris: each holds a connection by never finishing its headers; no token is needed for that.
    // One client here, without a share (http-connection-share.test.ts has the share): the total bound alone.
    const held = Array.from({ length: 8 }, () => connect(listener.port, '127.0.0.1'));
    await Promise.all(held.map((socket) => new Promise<void>((resolve) => socket.once('connect', () => socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n', () => resolve())))));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const body = JSON.stringify(ping(9));
    const ninth = await raw(listener.port, `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 1).catch(() => '');
    assert.is(ninth, '', 'the connection past the bound was closed unanswered');
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.is((await postRpc(listener.url, ping(10))).status, 200);
  }),
);

Limits('should refuse an id it cannot echo exactly (past 2^53), not answer with another id, and params holding a number no double holds, naming it :: numbers', () =>
  withServer({}, async ({ listener, sent }) => {
    // A number no double holds is refused where the body is parsed (json-numbers.ts): -32700, HTTP 400.
    for (const id of ['123456789012345678901234567890', '9007199254740993']) {
      const reply = await postRpc(listener.url, `{"jsonrpc":"2.0","id":${id},"method":"morphir.ping"}`);
      assert.is((reply.body.error as { code: number } | undefined)?.code, ErrorCode.ParseError, `${id}: ${JSON.stringify(reply.body)}`);
      assert.is(reply.body.id, null);
    }
    // Before, `1e400` reached the extension as null and `1e-400` as 0, and the call succeeded.
    for (const number of ['1e400', '1e-400', '9007199254740993']) {
      const reply = await postRpc(listener.url, `{"jsonrpc":"2.0","id":2,"method":"morphir.ping","params":{"n":${number}}}`);
      assert.is(reply.status, 400, number);
      assert.match((reply.body.error as { message: string }).message, new RegExp(`the number ${number} at line 1, column \\d+ .*send such a value as a string`), number);
    }
    const id = 2 ** 53 - 1;
    assert.is((await postRpc(listener.url, `{"jsonrpc":"2.0","id":${id},"method":"morphir.ping","params":{"n":-0,"m":1e300}}`)).body.id, id);
    assert.is(sent.filter((m) => m.method === 'morphir.ping').length, 1);
  }),
);

/** Opens a raw connection, sends `head`, then one more body byte every 50 ms; resolves with what was answered once the server closes it, or undefined if it still holds it after `waitMs`. */
function trickle(port: number, head: string, waitMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const drip = setInterval(() => socket.write(head.includes('chunked') ? '1\r\nx\r\n' : 'x'), 50);
    const done = (result: string | undefined): void => {
      clearInterval(drip);
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(undefined), waitMs);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.once('close', () => done(received));
    socket.on('error', () => undefined);
    socket.write(head);
  });
}

Limits('should close the connection of a request answered before its body arrived (no token, a foreign origin, 404, GET with a body), not read the rest forever :: refused bodies', () =>
  withServer({ token: TOKEN, headersTimeoutMs: 300, bodyTimeoutMs: 300 }, async ({ listener, sent }) => {
    const auth = `Authorization: Bearer ${TOKEN}\r\n`;
    const cases: Array<[string, RegExp]> = [
      ['POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{', / 401 /],
      ['POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n', / 401 /],
      ['POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{', / 403 /],
      [`POST /extensions/nope HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{`, / 404 /],
      ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\n\r\n{', / 200 /],
      // Expect: 100-continue: the body is not asked for (no 100 Continue) before the token is checked.
      ['POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n', /^HTTP\/1\.1 401 /],
    ];
    for (const [head, status] of cases) {
      // Ten times the server's header and body deadlines: before, the server read (and threw away) the trickled body for as long as it came.
      const reply = await trickle(listener.port, head, 3_000);
      assert.ok(reply !== undefined, `the server still held the connection 3 s after answering: ${head.split('\r\n')[0]}`);
      assert.match(reply, status, head.split('\r\n')[0]);
      assert.match(reply, /connection: close/i, 'the answer says the connection closes');
    }
    assert.is(sent.length, 0, 'nothing reached an extension');
    // A request whose body the server read keeps its connection (keep-alive), and a client that asks to continue gets 100 once let in.
    const kept = await postRpc(listener.url, ping(1), { authorization: `Bearer ${TOKEN}` });
    assert.is(kept.status, 200);
    const body = JSON.stringify(ping(2));
    const continued = await raw(listener.port, `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`, 1);
    assert.match(continued, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  }),
);

const Auth = suite('mep serve --http :: token');

Auth('should answer 401 without the token or with a forged one, and serve the right one (Bearer or Basic password)', () =>
  withServer({ token: TOKEN }, async ({ listener, sent }) => {
    const missing = await postRpc(listener.url, ping(0));
    assert.is(missing.status, 401);
    for (const forged of ['Bearer a-token-of-thirty-two-characterZ', 'Bearer a', `Bearer ${TOKEN}x`, 'Token abc']) {
      assert.is((await postRpc(listener.url, ping(0), { authorization: forged })).status, 401, forged);
    }
    assert.is(sent.length, 0, 'nothing reached an extension');
    const bearer = await postRpc(listener.url, ping(0), { authorization: `Bearer ${TOKEN}` });
    assert.is(bearer.status, 200);
    assert.ok(bearer.body.result);
    const basic = await postRpc(listener.url, ping(1), { authorization: `Basic ${btoa(`morphir:${TOKEN}`)}` });
    assert.is(basic.body.id, 1);
    // The health check answers without the token, and tells nothing.
    assert.equal(await (await fetch(`${listener.url}/health`)).json(), { status: 'ok' });
    assert.is((await fetch(`${listener.url}/info`)).status, 401);
  }),
);

Auth('should refuse to listen beyond loopback without a token', async () => {
  const server = createHostServer({ open: createNodeOpener() });
  try {
    await listenHttp(server, { host: '0.0.0.0', port: 0 });
    assert.unreachable('listened on 0.0.0.0 without a token');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Usage);
  } finally {
    await server.close();
  }
});

Limits.run();
Auth.run();
