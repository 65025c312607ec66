import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { Method } from '../protocol/methods.ts';
import { JsonText } from '../protocol/json-text.ts';
import { createSession } from '../session/session.ts';
import { startTestHttp } from '../serve/testing/http.ts';
import { createHttpTransport } from './http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

interface Seen {
  method: string;
  id: unknown;
  contentType: string | undefined;
  accept: string | undefined;
  authorization: string | undefined;
}

/**
 * An HTTP JSON-RPC server that is not ours, written as the reference host's test fixture
 * behaves: every POST answered alone (no session, no memory), the id echoed, errors with 200.
 */
async function startForeignServer(options: { status?: number } = {}): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const read = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => resolve(body));
    });
  const server: Server = createServer(async (req, res) => {
    const request = JSON.parse(await read(req)) as { id: unknown; method: string; params?: unknown };
    seen.push({ method: request.method, id: request.id, contentType: req.headers['content-type'], accept: req.headers.accept, authorization: req.headers.authorization });
    if (options.status) return res.writeHead(options.status).end();
    const answer = (body: object): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...body }));
    };
    switch (request.method) {
      case 'morphir.initialize':
        return answer({ result: { protocolVersion: '0.1', extension: { id: 'foreign.echo', name: 'Foreign echo', version: '1.0.0' }, capabilities: { backend: { targets: ['echo'], irVersions: ['3'], generate: true } } } });
      case 'morphir.backend.generate':
        return answer({ result: { success: true, artifacts: [{ path: 'echo/out.json', content: JSON.stringify(request.params), binary: false }], diagnostics: [] } });
      case 'morphir.shutdown':
        return answer({ result: null });
      default:
        return answer({ error: { code: -32601, message: `Method not found: ${request.method}` } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/rpc`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const Foreign = suite('transport/http :: against an independent JSON-RPC server');

Foreign('should send a JsonText member of params as its text, not parse it on the host (a large body read on its worker by mep serve)', async () => {
  const foreign = await startForeignServer();
  const session = createSession({ transport: createHttpTransport({ url: foreign.url, stream: false }) });
  try {
    await session.start();
    const pad = JsonText.ofWritten(JSON.stringify({ pad: [{}, {}, 'x'] }), 'object', []);
    // Before, the transport's JSON.stringify called its toJSON, which parsed the text on the host.
    pad.value = () => assert.unreachable('the text was parsed on the host');
    const result = await session.generate({ ir, target: 'echo', options: pad as unknown as Record<string, unknown> });
    assert.equal(JSON.parse(result.artifacts[0]?.content as string).options, { pad: [{}, {}, 'x'] });
  } finally {
    await session.close();
    await foreign.close();
  }
});

Foreign('should run a session (initialize, generate, shutdown) as one JSON POST each, sending no notification', async () => {
  const foreign = await startForeignServer();
  const session = createSession({ transport: createHttpTransport({ url: foreign.url, stream: false }) });
  try {
    const init = await session.start();
    assert.is(init.extension.id, 'foreign.echo');
    const result = await session.generate({ ir, target: 'echo', options: {} });
    assert.is(result.artifacts[0]?.path, 'echo/out.json');
    // The foreign server refuses what it does not know with 200 and a JSON-RPC error.
    try {
      await session.peer.request('morphir.nothing', {});
      assert.unreachable('an unknown method was answered');
    } catch (error) {
      assert.ok(isMepError(error));
      assert.is(error.code, ErrorCode.MethodNotFound);
    }
  } finally {
    await session.close();
    await foreign.close();
  }
  assert.equal(
    foreign.seen.map((s) => s.method),
    ['morphir.initialize', 'morphir.backend.generate', 'morphir.nothing', 'morphir.shutdown'],
  );
  for (const request of foreign.seen) {
    assert.is(request.contentType, 'application/json');
    assert.is(request.accept, 'application/json');
  }
  assert.is(new Set(foreign.seen.map((s) => s.id)).size, foreign.seen.length, 'each request has its own id');
});

Foreign('should end the session with ERR_UNAUTHORIZED on 401, and send URL userinfo as Basic', async () => {
  const foreign = await startForeignServer({ status: 401 });
  const session = createSession({ transport: createHttpTransport({ url: foreign.url.replace('http://', 'http://morphir:s3cret@') }) });
  try {
    await session.start();
    assert.unreachable('started against a 401');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Unauthorized);
    assert.not.match(error.message, /s3cret/);
  } finally {
    await session.close();
    await foreign.close();
  }
  assert.is(foreign.seen[0]?.authorization, `Basic ${btoa('morphir:s3cret')}`);
});

Foreign('should fail with ERR_UNREACHABLE when nothing listens', async () => {
  const foreign = await startForeignServer();
  await foreign.close();
  const session = createSession({ transport: createHttpTransport({ url: foreign.url }) });
  try {
    await session.start();
    assert.unreachable('started against a closed port');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Unreachable);
  } finally {
    await session.close();
  }
});

Foreign('should refuse a URL that is not http(s) with ERR_USAGE', () => {
  try {
    createHttpTransport({ url: 'file:///etc/passwd' });
    assert.unreachable('accepted file:');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Usage);
  }
});

Foreign('should not follow a redirect: the request is not sent again to where it points (another origin, the loopback), and the session ends with a typed error :: hostile', async () => {
  // Before, fetch followed a 307/308 and sent the POST (the user's IR) to the Location given,
  // e.g. a service on the user's loopback: the server at a URL chose where mep sends.
  const target = await startForeignServer();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(307, { location: target.url }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://localhost:${(server.address() as AddressInfo).port}/rpc`;
  const session = createSession({ transport: createHttpTransport({ url, token: 'tok-secret' }), requestTimeoutMs: 5_000 });
  try {
    const error = await session.start().catch((e: unknown) => e);
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.TransportClosed, error.message);
    assert.equal((error.data as { status?: number; reason?: string }).reason, 'redirect');
    assert.ok(error.message.includes(target.url), error.message);
    assert.is(target.seen.length, 0, 'nothing was sent where the redirect pointed');
  } finally {
    await session.close().catch(() => undefined);
    await new Promise((resolve) => server.close(resolve));
    await target.close();
  }
});

Foreign('should read no more than the start of an error answer\'s body: an endless HTTP 500 body is not held :: hostile', async () => {
  // Before, the whole body of a non-2xx answer was read into memory to show its first 300 characters.
  let sent = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      const pump = (): void => {
        while (!res.destroyed && sent < 256 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  const session = createSession({ transport: createHttpTransport({ url }), requestTimeoutMs: 60_000 });
  try {
    const error = await session.start().catch((e: unknown) => e);
    assert.ok(isMepError(error) && error.code === LocalErrorCode.TransportClosed, String(error));
    assert.match(error.message, /HTTP 500: x{300}/);
    assert.ok(sent < 64 * 1024 * 1024, `${sent} bytes sent before the client let go`);
  } finally {
    await session.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const Served = suite('transport/http :: against mep serve --http');

Served('should deliver streamed progress and cancel the call at the extension', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { token: 'a-token-of-thirty-two-characters' });
  const session = createSession({ transport: createHttpTransport({ url: `${served.listener.url}/extensions/echo`, token: 'a-token-of-thirty-two-characters' }) });
  try {
    await session.start();
    const kinds: string[] = [];
    session.onProgress((progress) => kinds.push(progress.kind));
    const done = await session.generate({ ir, target: 'echo', options: { progress: true } });
    assert.ok(done.success);
    assert.equal(kinds, ['begin', 'report', 'end']);

    const controller = new AbortController();
    const first = new Promise<void>((resolve) => session.onProgress(() => resolve()));
    const slow = session.generate({ ir, target: 'echo', options: { progress: true, delayMs: 60_000 } }, { signal: controller.signal });
    await first;
    controller.abort();
    try {
      await slow;
      assert.unreachable('the cancelled call resolved');
    } catch (error) {
      assert.ok(isMepError(error));
      assert.is(error.code, ErrorCode.RequestCancelled);
    }
    const cancel = await served.nextSent((m) => m.method === Method.CancelRequest);
    assert.ok(cancel);
  } finally {
    await session.close();
    await served.close();
  }
});

Served('should fail with ERR_UNAUTHORIZED without the token', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { token: 'a-token-of-thirty-two-characters' });
  const session = createSession({ transport: createHttpTransport({ url: `${served.listener.url}/` }) });
  try {
    await session.start();
    assert.unreachable('started without the token');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Unauthorized);
  } finally {
    await session.close();
    await served.close();
  }
});

Foreign.run();
Served.run();
