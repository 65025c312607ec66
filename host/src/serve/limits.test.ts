import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, LocalErrorCode } from '../protocol/errors.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { createByteChannelPair } from './byte-channel.ts';
import { createHostServer, type HostServer, type HostServerOptions } from './host-server.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { listenUnixSocket } from './unix-socket.ts';
import { createLineClient, type LineClient } from './testing/line-client.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');

/** In-process clients of one server; `end()` disconnects them all and closes the server. */
function serve(options: Partial<HostServerOptions>): { server: HostServer; client(): LineClient; end(): Promise<void> } {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000, ...options });
  const ends: (() => void)[] = [];
  return {
    server,
    client() {
      const [serverSide, clientSide] = createByteChannelPair();
      server.connect(serverSide);
      const client = createLineClient((bytes) => clientSide.write(bytes));
      clientSide.onData((chunk) => client.push(chunk));
      ends.push(() => clientSide.close());
      return client;
    },
    async end() {
      for (const end of ends) end();
      await server.close();
    },
  };
}

const limitOf = (response: JsonRpcMessage): unknown => {
  const error = response.error as { code: number; data: { localCode: string; limit: string } } | undefined;
  return error === undefined ? 'opened' : [error.code, error.data.localCode, error.data.limit];
};

const Sessions = suite('createHostServer :: session limits');

Sessions('should refuse a session past the per-connection limit, even when the opens race, and take one again after a close', async () => {
  const { client, end } = serve({ maxSessionsPerConnection: 2 });
  try {
    const a = client();
    const opens = await Promise.all([1, 2, 3, 4].map((id) => a.request(id, ServeMethod.Open, { extension: wellBehaved })));
    const outcomes = opens.map(limitOf);
    assert.is(outcomes.filter((o) => o === 'opened').length, 2, JSON.stringify(outcomes));
    assert.equal(outcomes.filter((o) => o !== 'opened'), [
      [ErrorCode.ExtensionFailure, LocalErrorCode.Limit, 'sessionsPerConnection'],
      [ErrorCode.ExtensionFailure, LocalErrorCode.Limit, 'sessionsPerConnection'],
    ]);
    const first = opens.find((o) => 'result' in o)?.result as { sessionId: string };
    assert.equal((await a.request(5, ServeMethod.Close, { sessionId: first.sessionId })).result, { closed: true });
    assert.is(limitOf(await a.request(6, ServeMethod.Open, { extension: wellBehaved })), 'opened');
  } finally {
    await end();
  }
});

Sessions('should refuse a session past the server-wide limit with its own typed error, and count failed opens as free', async () => {
  const { server, client, end } = serve({ maxSessions: 2 });
  try {
    const a = client();
    const b = client();
    assert.is(limitOf(await a.request(1, ServeMethod.Open, { extension: join(root, 'fixtures/extensions/no-such.mjs') })) !== 'opened', true);
    assert.is(limitOf(await a.request(2, ServeMethod.Open, { extension: wellBehaved })), 'opened');
    assert.is(limitOf(await b.request(1, ServeMethod.Open, { extension: wellBehaved })), 'opened');
    const refused = await b.request(2, ServeMethod.Open, { extension: wellBehaved });
    assert.equal(limitOf(refused), [ErrorCode.ExtensionFailure, LocalErrorCode.Limit, 'sessions']);
    assert.is(server.sessionCount, 2);
  } finally {
    await end();
  }
});

Sessions('should refuse a deadline longer than a timer holds, naming the maximum, and keep one at the maximum running :: numbers', async () => {
  const { client, end } = serve({});
  try {
    const a = client();
    const long = await a.request(1, ServeMethod.Open, { extension: wellBehaved, runtime: { requestTimeoutMs: 3_000_000_000 } });
    assert.is((long.error as { code: number }).code, ErrorCode.InvalidParams);
    assert.match(JSON.stringify(long.error), /2147483647/);
    const { sessionId } = (await a.request(2, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
    const generate = (id: number, timeoutMs: number) =>
      a.request(id, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir: { formatVersion: 3 }, target: 'echo', options: { delayMs: 200 } }, timeoutMs });
    // A timer of 3,000,000,000 ms used to fire after 1 ms: ERR_TIMEOUT at once.
    const over = await generate(3, 3_000_000_000);
    assert.is((over.error as { code: number }).code, ErrorCode.InvalidParams, JSON.stringify(over));
    assert.match(JSON.stringify(over.error), /2147483647/);
    const atMax = await generate(4, 2_147_483_647);
    // Answered by the extension after its 200 ms (an IR it refuses), not timed out at once.
    assert.ok('result' in atMax, JSON.stringify(atMax));
    // Past its deadline: the error names the call by the client's id, not by the server's own ("s1.2").
    const late = await generate(5, 50);
    const error = late.error as { data?: { localCode?: string; id?: unknown } };
    assert.is(error.data?.localCode, 'ERR_TIMEOUT', JSON.stringify(late));
    assert.is(error.data?.id, 5, JSON.stringify(late));
  } finally {
    await end();
  }
});

Sessions('should refuse a call past maxCallsPerConnection running at once (a client pipelining calls), and take one again when one is answered', async () => {
  // Before, each pipelined call was held (its params, a pending entry, a timer): 50,000 small
  // generate calls from one socket client took the server's heap to 460 MB after GC.
  const { client, end } = serve({ maxCallsPerConnection: 4 });
  try {
    const a = client();
    const opened = await a.request(1, ServeMethod.Open, { extension: wellBehaved });
    const { sessionId } = opened.result as { sessionId: string };
    const ir = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };
    const call = (id: number, delayMs: number) => a.request(id, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { delayMs } } });
    const slow = [10, 11, 12, 13].map((id) => call(id, 1_000));
    const refused = await Promise.all([call(14, 0), a.request(15, ServeMethod.Call, { sessionId, method: 'morphir.ping' })]);
    for (const response of refused) assert.equal(limitOf(response), [ErrorCode.ExtensionFailure, LocalErrorCode.Limit, 'callsPerConnection']);
    assert.match((refused[0]?.error as { message: string }).message, /4 calls running/);
    for (const response of await Promise.all(slow)) assert.ok('result' in response, JSON.stringify(response));
    assert.ok('result' in (await call(16, 0)), 'a call is taken again once one is answered');
  } finally {
    await end();
  }
});

Sessions.run();

const Backpressure = suite('createHostServer :: back-pressure');

Backpressure('should stop reading a client that does not read its answers, and answer everything once it does', async () => {
  const server = createHostServer({ open: createNodeOpener(), pauseAtBytes: 16 * 1024, maxPendingBytes: 1024 * 1024 });
  const [serverSide, clientSide] = createByteChannelPair();
  const connection = server.connect(serverSide);
  const client = createLineClient((bytes) => clientSide.write(bytes));
  clientSide.onData((chunk) => client.push(chunk));
  try {
    clientSide.pause();
    const answers = Array.from({ length: 2_000 }, (_, id) => client.request(id, ServeMethod.Info));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Paused at 16 KiB of answers: the server holds that plus one request's answer, not 2,000 answers.
    assert.ok(serverSide.pendingBytes < 32 * 1024, `server buffered ${serverSide.pendingBytes} bytes`);
    assert.ok(clientSide.pendingBytes > 0, 'the client’s requests wait unread');
    clientSide.resume();
    const all = await Promise.all(answers);
    assert.ok(all.every((m) => 'result' in m));
    assert.is(connection.sessionCount, 0);
  } finally {
    clientSide.close();
    await server.close();
  }
});

Backpressure('should drop a client over a Unix socket once its unread answers pass the bound, log why, and serve the next client', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-limits-'));
  const logged: string[] = [];
  let onLog!: () => void;
  const dropped = new Promise<void>((resolve) => (onLog = resolve));
  const server = createHostServer({
    open: createNodeOpener(),
    pauseAtBytes: 64 * 1024 * 1024, // not in play here: every request is read, answers pile up
    maxPendingBytes: 2 * 1024 * 1024,
    log: (message) => (logged.push(message), onLog()),
  });
  const listener = await listenUnixSocket(server, join(dir, 'mep.sock'));
  try {
    const socket = connect(listener.path);
    socket.on('error', () => undefined); // the server resets the connection: that is the point
    const hog = createLineClient((bytes) => socket.write(bytes));
    socket.on('data', (chunk) => hog.push(chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    const { sessionId } = (await hog.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
    socket.pause(); // from now on it never reads
    // Requests whose answers (echoes of a 1 MiB IR) are far more than the bound.
    const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }], padding: 'x'.repeat(1024 * 1024) };
    for (let id = 2; id < 10; id++) void hog.request(id, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: {} } });
    await dropped;
    assert.is(logged.length, 1, JSON.stringify(logged));
    assert.match(logged[0], /dropped/);
    socket.destroy();
    const next = connect(listener.path);
    const client = createLineClient((bytes) => next.write(bytes));
    next.on('data', (chunk) => client.push(chunk));
    assert.ok('result' in (await client.request(1, ServeMethod.Info)));
    next.destroy();
    const deadline = performance.now() + 5_000;
    while (server.sessionCount > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.is(server.sessionCount, 0, 'the dropped client’s session is closed');
  } finally {
    await listener.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Backpressure('should close socket connections past maxConnections unanswered, say so once in the log, and serve again once they are gone', async () => {
  // Before, nothing bounded them: 3,000 idle connections held 1,668 descriptors and 57 MB of the
  // server (its file limit was the only bound; at it, no extension can be started).
  const dir = await mkdtemp(join(tmpdir(), 'mep-serve-conns-'));
  const logged: string[] = [];
  const server = createHostServer({ open: createNodeOpener(), log: (message) => logged.push(message) });
  const listener = await listenUnixSocket(server, join(dir, 'mep.sock'), { maxConnections: 4 });
  const sockets: ReturnType<typeof connect>[] = [];
  try {
    for (let i = 0; i < 12; i++) {
      const socket = connect(listener.path);
      socket.on('error', () => undefined);
      sockets.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
    }
    const deadline = performance.now() + 5_000;
    while (logged.length === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.is(server.connectionCount, 4);
    assert.is(logged.length, 1, JSON.stringify(logged));
    assert.match(logged[0], /maxConnections \(4\)/);
    for (const socket of sockets) socket.destroy();
    while (server.connectionCount > 0 && performance.now() < deadline + 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
    const next = connect(listener.path);
    const client = createLineClient((bytes) => next.write(bytes));
    next.on('data', (chunk) => client.push(chunk));
    assert.ok('result' in (await client.request(1, ServeMethod.Info)));
    next.destroy();
  } finally {
    for (const socket of sockets) socket.destroy();
    await listener.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Backpressure('should drop the client whose unfinished line takes the lines in progress of all clients past maxLineBufferBytes, and serve the others', async () => {
  // Before, each connection buffered up to a line (64 MiB) before parsing it, and nothing
  // bounded them together: 10 socket clients with 50 MiB of unfinished line held 500 MB.
  const logged: string[] = [];
  const server = createHostServer({ open: createNodeOpener(), maxLineBufferBytes: 4 * 1024 * 1024, log: (message) => logged.push(message) });
  const encoder = new TextEncoder();
  const connectRaw = () => {
    const [serverSide, clientSide] = createByteChannelPair();
    server.connect(serverSide);
    const client = createLineClient((bytes) => clientSide.write(bytes));
    clientSide.onData((chunk) => client.push(chunk));
    return { client, clientSide };
  };
  const start = (id: number) => encoder.encode(`{"jsonrpc":"2.0","id":${id},"method":"server/info","params":{"pad":"`);
  try {
    const a = connectRaw();
    const b = connectRaw();
    a.clientSide.write(start(1));
    a.clientSide.write(encoder.encode('x'.repeat(3 * 1024 * 1024)));
    b.clientSide.write(start(1));
    b.clientSide.write(encoder.encode('y'.repeat(2 * 1024 * 1024)));
    const refused = await b.client.next((m) => 'error' in m);
    assert.equal(limitOf(refused), [ErrorCode.ExtensionFailure, LocalErrorCode.Limit, 'maxLineBufferBytes']);
    assert.match(logged.join('\n'), /maxLineBufferBytes/);
    a.clientSide.write(encoder.encode('"}}\n'));
    assert.ok('result' in (await a.client.next((m) => m.id === 1)), 'the client within the budget is served');
    const c = connectRaw();
    c.clientSide.write(start(2));
    c.clientSide.write(encoder.encode(`${'z'.repeat(3 * 1024 * 1024)}"}}\n`));
    assert.ok('result' in (await c.client.next((m) => m.id === 2)), 'the budget is free again once a line is finished');
    for (const { clientSide } of [a, c]) clientSide.close();
  } finally {
    await server.close();
  }
});

Backpressure.run();
