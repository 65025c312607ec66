/**
 * Cancellation of a wasm extension through a real JSON-RPC client (vscode-jsonrpc, VS Code's own)
 * speaking to the wasm transport: the client's only means is the `$/cancelRequest` notification
 * on the wire (it knows nothing of `transport.cancel`). A running call must be interrupted at once
 * (not after the call, where a queued notification would reach the guest) and answered -32800,
 * also when the guest's own loop saw ctx.cancelled and returned a result.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { AbstractMessageReader, AbstractMessageWriter, CancellationTokenSource, ResponseError, createMessageConnection, type DataCallback, type Disposable, type Message, type MessageConnection } from 'vscode-jsonrpc/node';
import { buildCancellable } from '../../../../fixtures/testing/cancellable.ts';
import { ErrorCode, isMepError } from '../../protocol/errors.ts';
import { createSession } from '../../session/session.ts';
import type { JsonRpcMessage, Transport } from '../types.ts';
import { createNodeWasmTransport } from './node/worker.ts';

const INIT = { protocolVersions: ['0.1'], host: { name: 'vscode-jsonrpc', version: '10' }, capabilities: { cancellation: true, progress: true }, permissions: {} };
const IR = { formatVersion: 3, distribution: ['Library', [['a']], [], { modules: [] }] };
/** The call deadline: a cancel that never reaches the guest ends in it (ERR_TIMEOUT, transport closed). */
const CALL_TIMEOUT_MS = 20_000;

/** What the client reads: the transport's messages. */
class TransportReader extends AbstractMessageReader {
  constructor(private readonly transport: Transport) {
    super();
    transport.onClose(() => this.fireClose());
  }
  listen(callback: DataCallback): Disposable {
    const stop = this.transport.onMessage((message) => callback(message as unknown as Message));
    return { dispose: stop };
  }
}

/** What the client writes: messages sent to the transport, as they are (no out-of-band cancel). */
class TransportWriter extends AbstractMessageWriter {
  constructor(private readonly transport: Transport) {
    super();
  }
  async write(message: Message): Promise<void> {
    try {
      this.transport.send(message as unknown as JsonRpcMessage);
    } catch (error) {
      this.fireError(error, message, 1);
      throw error;
    }
  }
  end(): void {}
}

interface Client {
  connection: MessageConnection;
  transport: Transport;
  progress: { requestId: unknown; kind: string }[];
  /** Resolves with the transport's error when it closes (a cancel that never arrived: the deadline). */
  closed: Promise<unknown>;
}

async function start(): Promise<Client> {
  const { wasm } = await buildCancellable();
  const transport = await createNodeWasmTransport({ name: 'cancellable', module: await readFile(wasm), limits: { callTimeoutMs: CALL_TIMEOUT_MS } });
  const connection = createMessageConnection(new TransportReader(transport), new TransportWriter(transport));
  const progress: Client['progress'] = [];
  connection.onNotification('morphir.progress', (p: { requestId: unknown; kind: string }) => void progress.push(p));
  connection.listen();
  const closed = new Promise<unknown>((resolve) => transport.onClose((error) => resolve(error)));
  const init = (await connection.sendRequest('morphir.initialize', INIT)) as { capabilities: { cancellation?: boolean } };
  assert.is(init.capabilities.cancellation, true);
  await connection.sendNotification('morphir.initialized', {});
  return { connection, transport, progress, closed };
}

async function stop(client: Client): Promise<void> {
  client.connection.dispose();
  await client.transport.close();
}

/** Resolves once the extension reported `begin`: its handler runs, the cancel overtakes nothing. */
async function started(client: Client): Promise<void> {
  for (let i = 0; i < 1000 && !client.progress.some((p) => p.kind === 'begin'); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(client.progress.some((p) => p.kind === 'begin'), 'the handler never started');
}

async function errorOf(client: Client, promise: Promise<unknown>): Promise<ResponseError<unknown>> {
  let outcome: unknown;
  try {
    outcome = await Promise.race([promise, client.closed.then((error) => Promise.reject(new Error(`the transport closed before the answer: ${String(error)}`)))]);
  } catch (error) {
    assert.instance(error, ResponseError, `expected a JSON-RPC error response, got ${String(error)}`);
    return error as ResponseError<unknown>;
  }
  return assert.unreachable(`expected -32800, got the result ${JSON.stringify(outcome).slice(0, 200)}`) as never;
}

const Cancel = suite('wasm transport :: cancellation from a JSON-RPC client (vscode-jsonrpc)');

for (const poll of [true, false]) {
  Cancel(`should interrupt a running call on the client's $/cancelRequest and answer -32800 (${poll ? 'the guest polls ctx.cancelled' : 'a guest that never polls'}), then serve the next`, async () => {
    const client = await start();
    try {
      const source = new CancellationTokenSource();
      const generate = client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: { poll } }, source.token);
      generate.catch(() => undefined);
      await started(client);
      source.cancel();
      const error = await errorOf(client, generate);
      assert.is(error.code, -32800, error.message);
      assert.equal(await client.connection.sendRequest('morphir.ping', {}), { ok: true });
      const done = (await client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: { iterations: 1000 } })) as { success: boolean; artifacts: { content: string }[] };
      assert.is(done.success, true);
      assert.match(done.artifacts[0].content, /^1000 /);
    } finally {
      await stop(client);
    }
  });
}

Cancel('should answer a queued request the client cancels -32800 without running it, and ignore unknown ids', async () => {
  const client = await start();
  try {
    await client.connection.sendNotification('$/cancelRequest', { id: 'nobody' });
    const first = new CancellationTokenSource();
    const second = new CancellationTokenSource();
    const running = client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: {} }, first.token);
    const queued = client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: { iterations: 10 } }, second.token);
    running.catch(() => undefined);
    queued.catch(() => undefined);
    await started(client);
    second.cancel();
    assert.is((await errorOf(client, queued)).code, -32800);
    first.cancel();
    assert.is((await errorOf(client, running)).code, -32800);
    assert.is(client.progress.filter((p) => p.kind === 'begin').length, 1, 'the queued request never ran');
  } finally {
    await stop(client);
  }
});

Cancel("should give the session API's cancelled generate the guest's own -32800 on the transport, not the loop's partial result", async () => {
  const { wasm } = await buildCancellable();
  const transport = await createNodeWasmTransport({ name: 'cancellable', module: await readFile(wasm), limits: { callTimeoutMs: CALL_TIMEOUT_MS } });
  const session = createSession({ transport, requestTimeoutMs: 0 });
  try {
    await session.start();
    // Several rounds: whether the guest's loop or the engine's interrupt poll sees the cancel first varies.
    for (let round = 0; round < 5; round++) {
      const answers: JsonRpcMessage[] = [];
      const stop = transport.onMessage((m) => void (m.method === undefined && answers.push(m)));
      const controller = new AbortController();
      let off = (): void => undefined;
      const begun = new Promise<void>((resolve) => (off = session.onProgress((p) => void (p.kind === 'begin' && resolve()))));
      const call = session.generate({ ir: IR, target: 'spin', options: {} }, { signal: controller.signal, id: `s-${round}` });
      call.catch(() => undefined);
      await begun;
      off();
      controller.abort();
      const error = await call.then(() => undefined, (e: unknown) => e);
      assert.ok(isMepError(error) && error.code === ErrorCode.RequestCancelled, String(error));
      await session.peer.abandonedAnswered();
      stop();
      const own = answers.find((m) => m.id === `s-${round}`);
      assert.is((own?.error as { code?: number } | undefined)?.code, -32800, `round ${round}: the extension answered ${JSON.stringify(own).slice(0, 200)}`);
    }
    assert.is((await session.generate({ ir: IR, target: 'spin', options: { iterations: 10 } })).success, true);
  } finally {
    await session.close();
  }
});

Cancel.run();
