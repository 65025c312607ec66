import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWatFixture } from '../../../fixtures/wasm/compile.ts';
import { ErrorCode } from '../protocol/errors.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { createByteChannelPair } from './byte-channel.ts';
import { createHostServer } from './host-server.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { createLineClient } from './testing/line-client.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');

/** A server in this process and one client of it; `leave()` disconnects the client. */
function serve() {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000, maxSessions: 4 });
  const [serverSide, clientSide] = createByteChannelPair();
  server.connect(serverSide);
  const line = createLineClient((bytes) => clientSide.write(bytes));
  clientSide.onData((chunk) => line.push(chunk));
  return { server, line, leave: () => clientSide.close() };
}

async function until(condition: () => boolean, ms: number, what: () => string): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) assert.unreachable(`${what()} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `promise`, or a failure naming `what` after `ms` (a test that waits on nothing ends silently). */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not come within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const errorOf = (message: JsonRpcMessage) => message.error as { code: number; message: string; data?: { localCode?: string; reason?: string } } | undefined;

const Reused = suite('mep serve :: a client reusing the id of a request still running');

let dir: string;
let startLoop: string;

Reused.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mep-serve-reused-'));
  startLoop = join(dir, 'start-loop.wasm');
  await writeFile(startLoop, loadWatFixture('start-loop'));
});

Reused.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Before: the second request under one id replaced the first in the peer's table of running
// requests, so the first was never aborted when its client left: opens of a guest that never
// finishes starting, sent under one id, held their session slots to the deadline the client chose
// (an hour here) after it had gone.
Reused('should release the slots of opens sent under one id when their client leaves, not hold them to the deadline the client chose', async () => {
  const { server, line, leave } = serve();
  try {
    const opens = [0, 1, 2].map(() => line.request('same', ServeMethod.Open, { extension: startLoop, runtime: { limits: { callTimeoutMs: 3_600_000 } } }));
    const refused = await within(10_000, Promise.race(opens), 'an answer to the opens sent under one id');
    assert.equal([errorOf(refused)?.code, errorOf(refused)?.data?.reason], [ErrorCode.InvalidRequest, 'id-in-use'], JSON.stringify(refused));
    await until(() => server.slotCount === 1, 20_000, () => `the first open taking its slot (${server.slotCount})`);
    leave();
    await until(() => server.slotCount === 0 && server.sessionCount === 0, 20_000, () => `the gone client's slots released (${server.slotCount} held)`);
  } finally {
    await server.close();
  }
});

Reused('should refuse a call whose id is still running (InvalidRequest naming it), and keep the first call cancellable', async () => {
  const { server, line, leave } = serve();
  try {
    const { sessionId } = (await line.request(1, ServeMethod.Open, { extension: wellBehaved })).result as { sessionId: string };
    const slow = { sessionId, method: 'morphir.backend.generate', params: { ir: { formatVersion: 3 }, target: 'echo', options: { delayMs: 60_000 } } };
    const first = line.request(7, ServeMethod.Call, slow);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await within(10_000, line.request(7, ServeMethod.Call, { sessionId, method: 'morphir.ping' }), 'an answer to the second call under id 7');
    assert.is(errorOf(second)?.code, ErrorCode.InvalidRequest, JSON.stringify(second));
    assert.match(errorOf(second)?.message ?? '', /Request id 7 is still running/);
    assert.is(await Promise.race([first, 'running']), second, 'the refusal is the first answer under id 7');
    line.notify('$/cancelRequest', { id: 7 });
    const cancelled = await line.next((m) => m.id === 7 && !('method' in m) && m !== second);
    assert.is(errorOf(cancelled)?.code, ErrorCode.RequestCancelled, JSON.stringify(cancelled));
    leave();
  } finally {
    await server.close();
  }
});

Reused.run();
