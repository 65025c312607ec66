import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, LocalErrorCode } from '../protocol/errors.ts';
import { createByteChannelPair } from './byte-channel.ts';
import { createHostServer } from './host-server.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { createLineClient } from './testing/line-client.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const partialFrame = join(root, 'fixtures/extensions/partial-frame.mjs');
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const MiB = 1024 * 1024;

const Frames = suite('createHostServer :: frames of process extensions, over all sessions');

Frames('should end the session whose unfinished frame passes the server-wide frame budget, and serve the others', async () => {
  // Before, each session held up to its own frame bound (64 MiB) and nothing bounded them
  // together: 64 sessions could hold 4 GiB of unfinished frames.
  const logged: string[] = [];
  const server = createHostServer({ open: createNodeOpener(), maxFrameBufferBytes: 4 * MiB, closeGraceMs: 500, log: (message) => logged.push(message) });
  const connect = () => {
    const [serverSide, clientSide] = createByteChannelPair();
    server.connect(serverSide);
    const client = createLineClient((bytes) => clientSide.write(bytes));
    clientSide.onData((chunk) => client.push(chunk));
    return { client, end: () => clientSide.close() };
  };
  const generate = { method: 'morphir.backend.generate', params: { ir: { formatVersion: 3 }, target: 'echo', options: {} } };
  const a = connect();
  const b = connect();
  try {
    const opened = async (c: ReturnType<typeof connect>) => ((await c.client.request('open', ServeMethod.Open, { extension: partialFrame })).result as { sessionId: string }).sessionId;
    const [sa, sb] = [await opened(a), await opened(b)];
    void a.client.request('gen', ServeMethod.Call, { sessionId: sa, ...generate });
    for (let i = 0; server.frameBytesHeld < 2 * MiB; i++) {
      if (i > 400) assert.unreachable(`the first frame was not held (${server.frameBytesHeld} bytes)`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const refused = await b.client.request('gen', ServeMethod.Call, { sessionId: sb, ...generate });
    const error = refused.error as { code: number; message: string; data: { localCode: string; limit: string } };
    assert.equal([error.code, error.data.localCode, error.data.limit], [ErrorCode.ExtensionFailure, LocalErrorCode.Limit, 'maxFrameBufferBytes'], JSON.stringify(error));
    assert.match(error.message, /maxFrameBufferBytes/);
    assert.ok(server.frameBytesHeld < 4 * MiB, 'the refused session gave its bytes back');
    // The server goes on: a new session of another client is served.
    const c = connect();
    const sc = ((await c.client.request('open', ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string }).sessionId;
    assert.equal((await c.client.request('ping', ServeMethod.Call, { sessionId: sc, method: 'morphir.ping' })).result, { ok: true });
    c.end();
    // Closing the session that holds a frame gives its bytes back.
    await a.client.request('close', ServeMethod.Close, { sessionId: sa });
    assert.is(server.frameBytesHeld, 0);
  } finally {
    a.end();
    b.end();
    await server.close();
  }
});

Frames.run();
