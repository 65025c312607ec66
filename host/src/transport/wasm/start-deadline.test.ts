import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, LocalErrorCode, isMepError } from '../../protocol/errors.ts';
import { createTestClient, rejection } from '../../../../fixtures/wasm/test-client.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { compileExtensionModule, createWasmTransport, warmWasmTransport, type WasmTransportOptions } from './index.ts';
import { createNodeWasmWorkerSpawner } from './node/worker.ts';
import { workerPoolOf } from './worker-pool.ts';
import { createStartDeadline } from './start-deadline.ts';

const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);
const dataOf = (error: unknown): Record<string, unknown> => (isMepError(error) ? (error.data as Record<string, unknown>) : {});

/** Resolves once `condition` holds; fails after `ms`. */
async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) assert.unreachable(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A spawner with a pool of its own, so a test can count the threads it left. */
function isolatedOptions(fixture: string, options: Partial<WasmTransportOptions> = {}): WasmTransportOptions {
  return { name: fixture, module: loadWatFixture(fixture), isolation: 'worker', spawnWorker: createNodeWasmWorkerSpawner({ spares: 1 }), ...options };
}

/** The well-behaved guest still answers on the same pool. */
async function assertPoolServes(options: WasmTransportOptions): Promise<void> {
  const transport = await createWasmTransport({ ...options, name: 'echo', module: loadWatFixture('echo'), limits: {} });
  try {
    assert.is((await createTestClient(transport).request(1, 'ping', 'alive')).result, 'alive');
  } finally {
    await transport.close();
  }
}

const Worker = suite('wasm start :: worker isolation');

for (const fixture of ['start-loop', 'attach-loop']) {
  Worker(`should stop a guest whose ${fixture === 'start-loop' ? 'start function' : 'mep_host_attach'} never returns at its deadline :: ERR_TIMEOUT`, async () => {
    const options = isolatedOptions(fixture, { limits: { callTimeoutMs: 300 } });
    const started = performance.now();
    const error = await rejection(createWasmTransport(options));
    const elapsed = performance.now() - started;
    assert.is(codeOf(error), LocalErrorCode.Timeout, String(error));
    assert.is(dataOf(error).limit, 'callTimeoutMs');
    assert.is(dataOf(error).phase, 'start');
    assert.ok(elapsed >= 290 && elapsed < 20_000, `stopped after ${elapsed.toFixed(0)} ms`);
    await until(() => workerPoolOf(options.spawnWorker!).stats().threads === 0, 20_000, 'the spinning thread ending');
    await assertPoolServes(options);
    await workerPoolOf(options.spawnWorker!).close();
  });
}

Worker('should stop the opening at once when its signal aborts, and leave no thread :: -32800', async () => {
  const options = isolatedOptions('start-loop', { limits: { callTimeoutMs: 60_000 } });
  const controller = new AbortController();
  const opening = rejection(createWasmTransport({ ...options, signal: controller.signal }));
  await until(() => workerPoolOf(options.spawnWorker!).stats().threads > 0, 20_000, 'the thread starting');
  controller.abort();
  assert.is(codeOf(await opening), ErrorCode.RequestCancelled);
  await until(() => workerPoolOf(options.spawnWorker!).stats().threads === 0, 20_000, 'the spinning thread ending');
  await workerPoolOf(options.spawnWorker!).close();
});

Worker('should bound a spare warmed for a looping guest by the same deadline', async () => {
  const options = isolatedOptions('start-loop', { limits: { callTimeoutMs: 200 } });
  await warmWasmTransport(options);
  assert.is(workerPoolOf(options.spawnWorker!).stats().threads, 1, 'the spare runs');
  await until(() => workerPoolOf(options.spawnWorker!).stats().threads === 0, 20_000, 'the spare being killed');
  // The session after it fails at its own deadline, not later.
  assert.is(codeOf(await rejection(createWasmTransport(options))), LocalErrorCode.Timeout);
  await workerPoolOf(options.spawnWorker!).close();
});

Worker('should count compiling against the deadline: a deadline already aborted opens nothing', async () => {
  const controller = new AbortController();
  controller.abort();
  const options = isolatedOptions('echo', { signal: controller.signal });
  assert.is(codeOf(await rejection(createWasmTransport(options))), ErrorCode.RequestCancelled);
  assert.is(workerPoolOf(options.spawnWorker!).stats().started, 0);
});

Worker.run();

const Inline = suite('wasm start :: inline isolation');

Inline('should refuse a module with a start function before instantiating it :: -32012', async () => {
  const error = await rejection(createWasmTransport({ name: 'start-loop', module: loadWatFixture('start-loop'), isolation: 'inline' }));
  assert.is(codeOf(error), ErrorCode.PermissionDenied);
  assert.is(dataOf(error).reason, 'start-function');
});

Inline('should run a module without a start function as before', async () => {
  const transport = await createWasmTransport({ name: 'echo', module: loadWatFixture('echo'), isolation: 'inline' });
  try {
    assert.is((await createTestClient(transport).request(1, 'ping', 1)).result, 1);
  } finally {
    await transport.close();
  }
});

Inline.run();

const Size = suite('wasm module size limit');

Size('should refuse bytes over maxModuleBytes before compiling them, naming the limit :: ERR_LIMIT', async () => {
  // Not even a wasm module: compiled, it would fail as ERR_USAGE.
  const junk = new Uint8Array(8 * 1024);
  for (const isolation of ['inline', 'worker'] as const) {
    const error = await rejection(createWasmTransport({ ...isolatedOptions('echo'), module: junk, isolation, limits: { maxModuleBytes: 4096 } }));
    assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
    assert.equal([dataOf(error).limit, dataOf(error).size], ['maxModuleBytes', junk.length]);
    assert.match((error as Error).message, /--max-module/);
  }
  assert.is(codeOf(await rejection(compileExtensionModule(junk, { name: 'junk', limits: { maxModuleBytes: 4096 } }))), LocalErrorCode.Limit);
  assert.is(codeOf(await rejection(compileExtensionModule(junk, { name: 'junk' }))), LocalErrorCode.Usage, 'under the limit it is compiled (and found invalid)');
});

Size.run();

const Deadline = suite('createStartDeadline');

Deadline('should reject a race at the deadline and run its stops once', async () => {
  const deadline = createStartDeadline('x', 20);
  let stops = 0;
  deadline.onStop(() => stops++);
  const error = await rejection(deadline.race(new Promise(() => undefined)));
  assert.is(codeOf(error), LocalErrorCode.Timeout);
  deadline.onStop(() => stops++);
  assert.is(stops, 2, 'a stop registered after the deadline runs at once');
  assert.is(codeOf(await rejection(deadline.race(Promise.resolve(1)))), LocalErrorCode.Timeout);
  deadline.dispose();
});

Deadline('should let a race through before the deadline and never stop after dispose', async () => {
  const deadline = createStartDeadline('x', 30);
  let stops = 0;
  deadline.onStop(() => stops++);
  assert.is(await deadline.race(Promise.resolve(7)), 7);
  deadline.dispose();
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.is(stops, 0);
  assert.is(deadline.error, undefined);
});

Deadline.run();
