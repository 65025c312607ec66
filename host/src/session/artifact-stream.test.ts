import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineExtension, textArtifact } from '../../../guest-pdk/src/index.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import type { Artifact } from '../protocol/index.ts';
import { createMemoryTransportPair } from '../transport/memory.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { createSession } from './session.ts';

const IR = { formatVersion: 3, distribution: ['Library', [], {}, { modules: [] }] };

/** A PDK backend that emits `count` artifacts and returns one more in its result. */
const streaming = (count: number) =>
  defineExtension({
    info: { id: 'test.stream', name: 'Streaming backend', version: '1.0.0' },
    backend: {
      targets: ['t'],
      irVersions: ['3'],
      generate(_params, ctx) {
        for (let i = 0; i < count; i++) ctx.emit(textArtifact(`out/${i}.txt`, `file ${i}`));
        return { artifacts: [textArtifact('out/last.txt', 'last')] };
      },
    },
  });

async function codeOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    return error.code;
  }
  return assert.unreachable('expected a failure');
}

/** A hand-driven extension: answers initialize, and generate by running `onGenerate`. */
function scripted(onGenerate: (send: (m: JsonRpcMessage) => void, id: JsonRpcMessage['id']) => void) {
  const [host, ext] = createMemoryTransportPair();
  const initializeCapabilities: unknown[] = [];
  ext.onMessage((m) => {
    if (m.method === 'morphir.initialize') {
      initializeCapabilities.push((m.params as { capabilities?: unknown }).capabilities);
      ext.send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '0.1', extension: { id: 'x', name: 'X', version: '1' }, capabilities: { backend: { targets: ['t'], irVersions: ['3'], generate: true } } } });
    } else if (m.method === 'morphir.backend.generate') {
      onGenerate((message) => ext.send(message), m.id);
    } else if (m.method === 'morphir.shutdown') {
      ext.send({ jsonrpc: '2.0', id: m.id, result: {} });
    }
  });
  return { session: createSession({ transport: host }), initializeCapabilities };
}

const artifact = (path: string): Artifact => ({ path, content: 'x', binary: false });
const notify = (requestId: unknown, value: unknown): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'morphir.backend.artifact', params: { requestId, artifact: value } });

const Stream = suite('session :: streamed artifacts (morphir.backend.artifact)');

Stream('should hand streamed artifacts to onArtifact in order, and return only the result\'s own', async () => {
  const session = createSession({ transport: createInProcessTransport(streaming(3)) });
  try {
    await session.start();
    const seen: string[] = [];
    const result = await session.generate({ ir: IR, target: 't' }, { onArtifact: (a) => void seen.push(a.path) });
    assert.equal(seen, ['out/0.txt', 'out/1.txt', 'out/2.txt']);
    assert.equal(result.artifacts.map((a) => a.path), ['out/last.txt']);
    assert.is(result.streamedArtifacts, 3);
  } finally {
    await session.close();
  }
});

Stream('should collect streamed artifacts into the result, before its own, without onArtifact', async () => {
  const session = createSession({ transport: createInProcessTransport(streaming(2)) });
  try {
    await session.start();
    const result = await session.generate({ ir: IR, target: 't' });
    assert.equal(result.artifacts.map((a) => a.path), ['out/0.txt', 'out/1.txt', 'out/last.txt']);
    assert.is(result.streamedArtifacts, undefined, 'nothing left to count');
  } finally {
    await session.close();
  }
});

Stream('should wait for every promise onArtifact returned, and fail with its error', async () => {
  const session = createSession({ transport: createInProcessTransport(streaming(3)) });
  try {
    await session.start();
    const staged: string[] = [];
    await session.generate({ ir: IR, target: 't' }, { onArtifact: (a) => Promise.resolve().then(() => void staged.push(a.path)) });
    assert.is(staged.length, 3, 'every sink settled before the result');
    const failing = session.generate({ ir: IR, target: 't' }, {
      onArtifact: async (a) => {
        if (a.path === 'out/1.txt') throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      },
    });
    let message = '';
    await failing.catch((e: Error) => (message = e.message));
    assert.is(message, 'disk full');
  } finally {
    await session.close();
  }
});

Stream('should announce artifactStream in initialize, and a PDK guest without it answers at once', async () => {
  const { session, initializeCapabilities } = scripted((send, id) => send({ jsonrpc: '2.0', id, result: { success: true, artifacts: [], diagnostics: [] } }));
  try {
    await session.start();
    assert.equal(initializeCapabilities, [{ cancellation: true, progress: true, artifactStream: true }]);
  } finally {
    await session.close();
  }
});

Stream('should refuse a malformed streamed artifact (ERR_PROTOCOL), after the backend answered', async () => {
  const { session } = scripted((send, id) => {
    send(notify(id, { path: 'a.txt', content: 'x', binary: false, mode: '0755' }));
    send({ jsonrpc: '2.0', id, result: { success: true, artifacts: [], diagnostics: [], streamedArtifacts: 1 } });
  });
  try {
    await session.start();
    assert.is(await codeOf(session.generate({ ir: IR, target: 't' }, { onArtifact: () => assert.unreachable('a malformed artifact reached the sink') })), LocalErrorCode.Protocol);
    assert.is(session.state, 'ready', 'a bad result fails the call, not the session');
  } finally {
    await session.close();
  }
});

Stream('should refuse a result whose streamedArtifacts disagrees with what arrived (ERR_PROTOCOL)', async () => {
  for (const [sent, claimed] of [
    [2, 3],
    [2, undefined],
    [0, 1],
  ] as const) {
    const { session } = scripted((send, id) => {
      for (let i = 0; i < sent; i++) send(notify(id, artifact(`f${i}`)));
      send({ jsonrpc: '2.0', id, result: { success: true, artifacts: [], diagnostics: [], ...(claimed === undefined ? {} : { streamedArtifacts: claimed }) } });
    });
    try {
      await session.start();
      assert.is(await codeOf(session.generate({ ir: IR, target: 't' })), LocalErrorCode.Protocol, `${sent} sent, ${claimed} claimed`);
    } finally {
      await session.close();
    }
  }
});

Stream('should ignore artifacts streamed for another request id', async () => {
  const { session } = scripted((send, id) => {
    send(notify('someone-else', artifact('stray.txt')));
    send(notify(id, artifact('mine.txt')));
    send({ jsonrpc: '2.0', id, result: { success: true, artifacts: [], diagnostics: [], streamedArtifacts: 1 } });
  });
  try {
    await session.start();
    const result = await session.generate({ ir: IR, target: 't' }, { id: 'gen-7' });
    assert.equal(result.artifacts.map((a) => a.path), ['mine.txt']);
  } finally {
    await session.close();
  }
});

Stream.run();
