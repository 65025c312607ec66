import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtAvro } from '../../../examples/testing/built.ts';
import { ErrorCode, LocalErrorCode } from '../protocol/errors.ts';
import { MAX_JSON_DEPTH } from '../protocol/json-depth.ts';
import { ServeMethod } from './methods.ts';
import { connectServed } from './testing/connect.ts';
import type { LineClient } from './testing/line-client.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = (name: string) => join(root, 'fixtures/extensions', `${name}.mjs`);
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

const connect = connectServed;

async function open(client: LineClient, extension: string, id: string | number = 'open'): Promise<string> {
  const response = await client.request(id, ServeMethod.Open, { extension });
  assert.ok('result' in response, JSON.stringify(response));
  return (response.result as { sessionId: string }).sessionId;
}

const generate = (sessionId: string, options: Record<string, unknown>, target = 'echo') => ({
  sessionId,
  method: 'morphir.backend.generate',
  params: { ir, target, options },
});

const Serve = suite('createHostServer :: process extensions');

Serve('should answer a fast ping before a slow generate sent first, tagging progress and logs', async () => {
  const { client, end } = connect();
  try {
    const sessionId = await open(client, fixture('well-behaved'));
    const slow = client.request('slow', ServeMethod.Call, generate(sessionId, { delayMs: 400, progress: true }));
    const fast = client.request('fast', ServeMethod.Call, { sessionId, method: 'morphir.ping' });
    const [slowResponse, fastResponse] = await Promise.all([slow, fast]);
    assert.ok(client.seen.indexOf(fastResponse) < client.seen.indexOf(slowResponse), 'the ping answer arrives first');
    assert.equal(fastResponse.result, { ok: true });
    assert.is((slowResponse.result as { success: boolean }).success, true);
    const progress = client.seen.filter((m) => m.method === ServeMethod.Progress).map((m) => m.params as Record<string, unknown>);
    assert.equal(progress.map((p) => [p.sessionId, p.requestId, p.kind]), [[sessionId, 'slow', 'begin'], [sessionId, 'slow', 'report'], [sessionId, 'slow', 'end']]);
    const log = (await client.next((m) => m.method === ServeMethod.Log)).params as Record<string, unknown>;
    assert.is(log.sessionId, sessionId);
    assert.match(String(log.message), /started mep\.fixture\.well-behaved/);
  } finally {
    await end();
  }
});

Serve('should cancel a running call on $/cancelRequest and keep the session', async () => {
  const { client, end } = connect();
  try {
    const sessionId = await open(client, fixture('well-behaved'));
    const call = client.request(7, ServeMethod.Call, generate(sessionId, { delayMs: 20_000, progress: true }));
    await client.next((m) => m.method === ServeMethod.Progress && (m.params as { requestId: unknown }).requestId === 7);
    client.notify('$/cancelRequest', { id: 7 });
    const response = await call;
    assert.is((response.error as { code: number }).code, ErrorCode.RequestCancelled);
    assert.equal((await client.request(8, ServeMethod.Call, { sessionId, method: 'morphir.ping' })).result, { ok: true });
  } finally {
    await end();
  }
});

Serve('should answer protocol errors with JSON-RPC errors and go on', async () => {
  const { client, end } = connect();
  try {
    const unknown = await client.request(1, ServeMethod.Call, { sessionId: 's404', method: 'morphir.ping' });
    assert.is((unknown.error as { code: number }).code, ErrorCode.InvalidParams);
    const badMethod = await client.request(2, ServeMethod.Call, { sessionId: 's1', method: 'morphir.shutdown' });
    assert.is((badMethod.error as { code: number }).code, ErrorCode.InvalidParams);
    const missing = await client.request(3, 'session/frobnicate', {});
    assert.is((missing.error as { code: number }).code, ErrorCode.MethodNotFound);
    const noFile = await client.request(4, ServeMethod.Open, { extension: join(root, 'no/such/extension.wasm') });
    assert.is((noFile.error as { code: number; data: { localCode: string } }).data.localCode, LocalErrorCode.Usage);
    client.sendRaw('{"jsonrpc":"2.0","id":5,"method":\n');
    const parseError = await client.next((m) => m.id === null);
    assert.is((parseError.error as { code: number }).code, ErrorCode.ParseError);
    const sessionId = await open(client, fixture('well-behaved'), 6);
    const refused = await client.request(7, ServeMethod.Call, generate(sessionId, {}, 'protobuf'));
    assert.is((refused.error as { code: number }).code, ErrorCode.CapabilityUnavailable);
    const invalid = await client.request(8, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { target: 'echo' } });
    assert.is((invalid.error as { code: number }).code, ErrorCode.InvalidParams);
  } finally {
    await end();
  }
});

Serve('should refuse a line nested 100,000 levels deep unread, and go on :: hostile', async () => {
  const { client, end } = connect();
  try {
    client.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"morphir.ping","params":{"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}}\n`);
    const refused = await client.next((m) => m.id === 1 || m.id === null);
    const error = refused.error as { code: number; data: { limit: string; maxDepth: number; localCode: string } };
    assert.is(refused.id, 1);
    assert.is(error.code, ErrorCode.ExtensionFailure);
    assert.equal([error.data.localCode, error.data.limit, error.data.maxDepth], [LocalErrorCode.Limit, 'maxJsonDepth', MAX_JSON_DEPTH]);
    const sessionId = await open(client, fixture('well-behaved'));
    assert.equal((await client.request(2, ServeMethod.Call, { sessionId, method: 'morphir.ping' })).result, { ok: true });
  } finally {
    await end();
  }
});

Serve('should report an extension that crashed mid-call and forget its session', async () => {
  const { server, client, end } = connect();
  try {
    const sessionId = await open(client, fixture('crash-mid-request'));
    const response = await client.request(1, ServeMethod.Call, generate(sessionId, {}));
    const error = response.error as { code: number; data: { localCode: string } };
    assert.is(error.code, ErrorCode.ExtensionFailure);
    assert.is(error.data.localCode, LocalErrorCode.ExtensionCrashed);
    const closed = await client.next((m) => m.method === ServeMethod.Closed);
    assert.is((closed.params as { sessionId: string }).sessionId, sessionId);
    const again = await client.request(2, ServeMethod.Call, { sessionId, method: 'morphir.ping' });
    assert.is((again.error as { code: number }).code, ErrorCode.InvalidParams);
    assert.is(server.sessionCount, 0);
  } finally {
    await end();
  }
});

Serve('should close every session of a client that disconnects mid-call', async () => {
  const { server, client, end } = connect();
  const first = await open(client, fixture('well-behaved'), 'a');
  await open(client, fixture('well-behaved'), 'b');
  void client.request(1, ServeMethod.Call, generate(first, { delayMs: 20_000, progress: true }));
  await client.next((m) => m.method === ServeMethod.Progress);
  assert.is(server.sessionCount, 2);
  await end();
  assert.is(server.sessionCount, 0);
  assert.is(server.connectionCount, 0);
});

Serve('should close everything on server/shutdown after answering it', async () => {
  const { server, client, end } = connect();
  let closed = false;
  server.onClose(() => (closed = true));
  try {
    await open(client, fixture('well-behaved'));
    const response = await client.request(1, ServeMethod.Shutdown, {});
    assert.equal(response.result, {});
    await server.close();
    assert.ok(closed);
    assert.is(server.sessionCount, 0);
  } finally {
    await end();
  }
});

Serve.run();

const Wasm = suite('createHostServer :: wasm extensions');

/** A Morphir IR large enough that the Avro guest needs seconds for it (written once, cached). */
function largeIr(): unknown {
  const out = join(root, '.cache', 'serve', 'ir-8x60.json');
  mkdirSync(join(root, '.cache', 'serve'), { recursive: true });
  try {
    return JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    execFileSync(process.execPath, ['--import', 'tsx', join(root, 'fixtures/ir/generate-large.ts'), '--modules', '8', '--types-per-module', '60', '--out', out], { cwd: root, stdio: 'ignore' });
    return JSON.parse(readFileSync(out, 'utf8'));
  }
}

Wasm('should stop a running Avro generation on $/cancelRequest and keep the session usable', async () => {
  const avro = await builtAvro('wasm');
  const big = largeIr();
  const { client, end } = connect();
  try {
    const sessionId = await open(client, avro);
    const call = client.request('gen', ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir: big, target: 'avro', options: {} } });
    await client.next((m) => m.method === ServeMethod.Progress && (m.params as { requestId: unknown }).requestId === 'gen');
    client.notify('$/cancelRequest', { id: 'gen' });
    const response = await call;
    assert.is((response.error as { code: number }).code, ErrorCode.RequestCancelled);
    // Calls to one guest run one at a time: this ping is answered only once the generation stopped.
    const ping = await client.request('ping', ServeMethod.Call, { sessionId, method: 'morphir.ping' });
    assert.ok('result' in ping, JSON.stringify(ping));
    // The generation stopped in its projection: it never reached rendering (90 %) nor its end, and
    // the guest reported no step after the answer (a host that waited for the whole generation and
    // then said "cancelled" would show both).
    const answeredAt = client.seen.indexOf(response);
    const progress = client.seen
      .map((m, at) => ({ at, m }))
      .filter(({ m }) => m.method === ServeMethod.Progress && (m.params as { requestId: unknown }).requestId === 'gen')
      .map(({ at, m }) => ({ at, ...(m.params as { kind: string; percentage?: number; message?: string }) }));
    assert.ok(progress.length >= 1 && progress[0].kind === 'begin', JSON.stringify(progress[0]));
    assert.ok(progress.every((p) => p.kind !== 'end' && (p.percentage ?? 0) < 90), JSON.stringify(progress.at(-1)));
    assert.ok(progress.every((p) => p.at < answeredAt), 'no progress after the cancelled answer');
    assert.ok(progress.every((p) => /^Projecting /.test(String(p.message))), JSON.stringify(progress.map((p) => p.message)));
    const small = JSON.parse(readFileSync(join(root, 'fixtures/ir/customer/morphir-ir.json'), 'utf8'));
    const done = await client.request('small', ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir: small, target: 'avro', options: {} } });
    // The Avro guest streams its artifacts (morphir.backend.artifact); the server collects them into the result.
    assert.equal((done.result as { artifacts: { path: string }[] }).artifacts.map((a) => a.path), ['acme/customer/customer/Customer.avsc']);
    assert.is((done.result as { streamedArtifacts?: number }).streamedArtifacts, undefined);
  } finally {
    await end();
  }
});

Wasm.run();
