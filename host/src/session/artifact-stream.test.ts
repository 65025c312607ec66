import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineExtension, textArtifact } from '../../../guest-pdk/src/index.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import { ErrorCode, LocalErrorCode, isMepError } from '../protocol/errors.ts';
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
  return { session: createSession({ transport: host }), initializeCapabilities, host };
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

/** A sink whose writes finish only when the test says so, oldest first. */
function heldSink() {
  const writes: Array<{ path: string; open: boolean; done: () => void }> = [];
  return {
    writes,
    onArtifact: (a: Artifact) => new Promise<void>((done) => writes.push({ path: a.path, open: true, done })),
    inHand: () => writes.filter((w) => w.open).length,
    finishOne() {
      const first = writes.find((w) => w.open);
      if (first === undefined) return;
      first.open = false;
      first.done();
    },
  };
}
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Streams `count` artifacts at once, then answers. */
const burst = (count: number) => (send: (m: JsonRpcMessage) => void, id: JsonRpcMessage['id']) => {
  for (let i = 0; i < count; i++) send(notify(id, artifact(`f${i}.txt`)));
  send({ jsonrpc: '2.0', id, result: { success: true, artifacts: [], diagnostics: [], streamedArtifacts: count } });
};

Stream('should hold the extension back while the sink has more than its window in hand, and take the rest in order as it catches up', async () => {
  const { session, host } = scripted(burst(20));
  try {
    await session.start();
    const sink = heldSink();
    const result = session.generate({ ir: IR, target: 't' }, { onArtifact: sink.onArtifact, streamWindow: { maxArtifacts: 3 } });
    await turn();
    assert.ok(host.paused, 'the transport was paused');
    assert.is(sink.writes.length, 4, 'the sink got its window and the one that filled it, nothing more');
    for (let i = 0; i < 40 && sink.writes.length < 20; i++) {
      sink.finishOne();
      await turn();
      assert.ok(sink.inHand() <= 4, 'never more than the window and one in hand');
    }
    while (sink.inHand() > 0) sink.finishOne();
    const answered = await result;
    assert.is(answered.streamedArtifacts, 20);
    assert.equal(sink.writes.map((w) => w.path), Array.from({ length: 20 }, (_, i) => `f${i}.txt`), 'in the order streamed');
    assert.not.ok(host.paused, 'resumed');
  } finally {
    await session.close();
  }
});

Stream('should end at the call deadline with ERR_TIMEOUT when the sink stops (held back, or after the answer)', async () => {
  for (const maxArtifacts of [3, 1000]) {
    const { session } = scripted(burst(20));
    try {
      await session.start();
      const sink = heldSink();
      assert.is(await codeOf(session.generate({ ir: IR, target: 't' }, { onArtifact: sink.onArtifact, streamWindow: { maxArtifacts }, timeoutMs: 100 })), LocalErrorCode.Timeout, `window ${maxArtifacts}`);
    } finally {
      await session.close();
    }
  }
});

Stream('should stop at once when cancelled while the extension is held back', async () => {
  const { session } = scripted(burst(20));
  try {
    await session.start();
    const sink = heldSink();
    const controller = new AbortController();
    const result = session.generate({ ir: IR, target: 't' }, { onArtifact: sink.onArtifact, streamWindow: { maxArtifacts: 3 }, signal: controller.signal });
    await turn();
    controller.abort();
    assert.is(await codeOf(result), ErrorCode.RequestCancelled);
    assert.is(sink.writes.length, 4, 'nothing more was taken for the cancelled call');
  } finally {
    await session.close();
  }
});

Stream('should refuse collecting more than maxCollectedBytes into the result (ERR_LIMIT)', async () => {
  const { session } = scripted(burst(20));
  try {
    await session.start();
    assert.is(await codeOf(session.generate({ ir: IR, target: 't' }, { maxCollectedBytes: 10 })), LocalErrorCode.Limit);
    assert.is((await session.generate({ ir: IR, target: 't' }, { maxCollectedBytes: 20 })).artifacts.length, 20, 'up to the limit they are collected');
  } finally {
    await session.close();
  }
});

Stream.run();
