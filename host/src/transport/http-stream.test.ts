import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Artifact } from '../protocol/artifact.ts';
import { ErrorCode, isMepError } from '../protocol/errors.ts';
import type { LogParams } from '../protocol/notifications.ts';
import { createSession } from '../session/session.ts';
import { startTestHttp, type TestHttpServer } from '../serve/testing/http.ts';
import { createHttpTransport } from './http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const streamer = join(root, 'fixtures/extensions/artifact-stream.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const request = (options: Record<string, unknown>) => ({ ir, target: 'echo', options: { count: 3, kib: 1, log: 'writing 3 files', ...options } });

const Stream = suite('transport/http :: logs and streamed artifacts from mep serve --http (SSE)');
// One server for the suite (its pooled extension serves every test's session).
let served: TestHttpServer;
Stream.before(async () => {
  served = await startTestHttp({ streamer });
});
Stream.after(() => served.close());

Stream('should deliver the extension log and each streamed artifact, in order, before the result', async () => {
  const session = createSession({ transport: createHttpTransport({ url: `${served.listener.url}/extensions/streamer` }) });
  const seen: string[] = [];
  try {
    await session.start();
    session.onLog((log: LogParams) => seen.push(`log ${log.level} ${log.message}`));
    const artifacts: Artifact[] = [];
    const result = await session.generate(request({}), {
      onArtifact: (artifact) => {
        artifacts.push(artifact);
        seen.push(`artifact ${artifact.path}`);
      },
    });
    seen.push('result');
    assert.ok(result.success);
    assert.is(result.streamedArtifacts, 3);
    assert.equal(result.artifacts, [], 'streamed artifacts went to onArtifact, not into the result');
    assert.equal(seen.filter((s) => !s.startsWith('log info started')), ['log info writing 3 files', 'artifact gen/0.txt', 'artifact gen/1.txt', 'artifact gen/2.txt', 'result']);
    for (const artifact of artifacts) assert.is(artifact.content, 'x'.repeat(1024));
  } finally {
    await session.close();
  }
});

Stream('should collect streamed artifacts into the result when the caller takes none one by one', async () => {
  const session = createSession({ transport: createHttpTransport({ url: `${served.listener.url}/extensions/streamer` }) });
  try {
    await session.start();
    const result = await session.generate(request({ count: 2 }));
    assert.ok(result.success);
    assert.equal(result.artifacts.map((a) => a.path), ['gen/0.txt', 'gen/1.txt']);
  } finally {
    await session.close();
  }
});

Stream('should give a plain JSON client (no SSE) the artifacts in the result and no log', async () => {
  const session = createSession({ transport: createHttpTransport({ url: `${served.listener.url}/extensions/streamer`, stream: false }) });
  const logs: string[] = [];
  try {
    await session.start();
    session.onLog((log) => logs.push(log.message));
    const result = await session.generate(request({ count: 2 }));
    assert.ok(result.success);
    assert.equal(result.artifacts.map((a) => a.path), ['gen/0.txt', 'gen/1.txt']);
    assert.equal(logs, []);
  } finally {
    await session.close();
  }
});

Stream('should fail the call with a typed error when the backend streams an artifact that is not one', async () => {
  const session = createSession({ transport: createHttpTransport({ url: `${served.listener.url}/extensions/streamer` }) });
  const taken: string[] = [];
  try {
    await session.start();
    try {
      await session.generate(request({ count: 3, badPath: 42 }), { onArtifact: (a) => void taken.push(a.path) });
      assert.unreachable('an artifact with a numeric path was accepted');
    } catch (error) {
      assert.ok(isMepError(error), String(error));
      // The server's session refused it first; over the wire a local ERR_PROTOCOL is -32010 (an extension failure).
      assert.is(error.code, ErrorCode.ExtensionFailure);
      assert.match(error.message, /streamed an artifact that is not/);
    }
    assert.equal(taken, ['gen/0.txt']);
    // The session lives on: the next call is answered.
    assert.ok((await session.generate(request({ count: 1 }))).success);
  } finally {
    await session.close();
  }
});

Stream.run();
