/**
 * Cancellation of a process extension through a real JSON-RPC client (vscode-jsonrpc, VS Code's
 * own) over stdio: a synchronous handler that polls ctx.cancelled stops, and the answer is -32800.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { CancellationTokenSource, ResponseError, StreamMessageReader, StreamMessageWriter, createMessageConnection, type MessageConnection } from 'vscode-jsonrpc/node';
import { buildCancellable } from '../../../fixtures/testing/cancellable.ts';

const INIT = { protocolVersions: ['0.1'], host: { name: 'vscode-jsonrpc', version: '10' }, capabilities: { cancellation: true, progress: true }, permissions: {} };
const IR = { formatVersion: 3, distribution: ['Library', [['a']], [], { modules: [] }] };

interface Client {
  connection: MessageConnection;
  child: ChildProcess;
  progress: { requestId: unknown; kind: string }[];
  stderr: () => string;
}

async function start(): Promise<Client> {
  const { mjs } = await buildCancellable();
  const child = spawn(process.execPath, [mjs], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const progress: Client['progress'] = [];
  connection.onNotification('morphir.progress', (p: { requestId: unknown; kind: string }) => void progress.push(p));
  connection.listen();
  const init = (await connection.sendRequest('morphir.initialize', INIT)) as { capabilities: { cancellation?: boolean } };
  assert.is(init.capabilities.cancellation, true);
  connection.sendNotification('morphir.initialized', {});
  return { connection, child, progress, stderr: () => stderr };
}

async function stop(client: Client): Promise<void> {
  client.connection.dispose();
  client.child.kill('SIGKILL');
  if (client.child.exitCode === null && client.child.signalCode === null) await new Promise((r) => client.child.once('exit', r));
}

/** Resolves once the extension reported `begin` (its handler runs): then the cancel overtakes nothing. */
async function started(client: Client): Promise<void> {
  for (let i = 0; i < 1000 && !client.progress.some((p) => p.kind === 'begin'); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(client.progress.some((p) => p.kind === 'begin'), `the handler never started; stderr: ${client.stderr()}`);
}

async function errorOf(promise: Promise<unknown>): Promise<ResponseError<unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ResponseError);
    return error as ResponseError<unknown>;
  }
  return assert.unreachable('expected an error response, got a result') as never;
}

const Cancel = suite('guest-pdk :: process cancellation (vscode-jsonrpc)');

Cancel('should stop a synchronous loop that polls ctx.cancelled and answer -32800, then serve the next request', async () => {
  const client = await start();
  try {
    const source = new CancellationTokenSource();
    const generate = client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: {} }, source.token);
    await started(client);
    source.cancel();
    const error = await errorOf(generate);
    assert.is(error.code, -32800, error.message);
    // The extension is alive and answers in order after the cancelled call.
    assert.equal(await client.connection.sendRequest('morphir.ping', {}), { ok: true });
    // A call nobody cancels still gives its result.
    const done = (await client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: { iterations: 1000 } })) as { success: boolean; artifacts: { content: string }[] };
    assert.is(done.success, true);
    assert.match(done.artifacts[0].content, /^1000 /);
  } finally {
    await stop(client);
  }
});

Cancel('should answer -32800 for a handler that never reads ctx.cancelled, once it returns', async () => {
  const client = await start();
  try {
    const source = new CancellationTokenSource();
    const generate = client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: { poll: false, iterations: 3e8 } }, source.token);
    await started(client);
    source.cancel();
    assert.is((await errorOf(generate)).code, -32800);
  } finally {
    await stop(client);
  }
});

Cancel('should ignore a cancellation of an unknown id and of a finished request', async () => {
  const client = await start();
  try {
    client.connection.sendNotification('$/cancelRequest', { id: 'nobody' });
    const done = (await client.connection.sendRequest('morphir.backend.generate', { ir: IR, target: 'spin', options: { iterations: 10 } })) as { success: boolean };
    assert.is(done.success, true);
    client.connection.sendNotification('$/cancelRequest', { id: 2 });
    client.connection.sendNotification('$/cancelRequest', { id: { not: 'an id' } });
    assert.equal(await client.connection.sendRequest('morphir.ping', {}), { ok: true });
  } finally {
    await stop(client);
  }
});

Cancel.run();
