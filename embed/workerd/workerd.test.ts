import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtAvro } from '../../examples/testing/built.ts';
import { isAlive } from '../../host/src/serve/testing/processes.ts';
import { createSession } from '../../host/src/session/session.ts';
import { createHttpTransport } from '../../host/src/transport/http.ts';
import { buildWorkerdEmbed } from './build.ts';
import type { GenerateResponseBody } from './src/generate-handler.ts';
import { freePort } from '../../fixtures/testing/ports.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const workerdBinary = (createRequire(import.meta.url)('workerd') as { default: string }).default;
const customerIr = readFileSync(join(root, 'fixtures/ir/customer/morphir-ir.json'), 'utf8');
const MEP_TOKEN = 'the-workers-secret-from-its-environment';
/** `fetch` presenting the worker's secret token. */
const authed = (url: string, init: RequestInit = {}): Promise<Response> => fetch(url, { ...init, headers: { authorization: `Bearer ${MEP_TOKEN}`, ...(init.headers as Record<string, string>) } });

/** Resolves once something accepts connections on `port`; workerd prints nothing when it is ready. */
async function accepting(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`workerd exited with ${child.exitCode}: ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`workerd did not listen on 127.0.0.1:${port} within 15 s: ${log()}`);
}

const Workerd = suite('embed/workerd :: the Avro backend in workerd');

Workerd('should answer a POST of a Morphir IR with the generated artifacts, behind its MEP_TOKEN secret, and stop without an orphan', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-workerd-'));
  const port = await freePort();
  const { config } = await buildWorkerdEmbed({ avroWasm: await builtAvro('wasm'), port, outDir: dir });
  const child = spawn(workerdBinary, ['serve', config], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MEP_TOKEN } });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await accepting(port, child, () => output);
    const base = `http://127.0.0.1:${port}/`;

    // The secret bound from workerd's environment guards every route.
    for (const path of ['', 'extensions/avro']) assert.is((await fetch(`${base}${path}`, { method: 'POST', body: customerIr, headers: { 'content-type': 'application/json' } })).status, 401, path);

    const response = await authed(base, { method: 'POST', body: customerIr, headers: { 'content-type': 'application/json' } });
    assert.is(response.status, 200, output);
    assert.not.match(output, /without the MEP host channel/, 'the precompiled trampoline attached the host channel');
    const body = (await response.json()) as GenerateResponseBody;
    assert.is(body.success, true);
    assert.is(body.target, 'avro');
    assert.is(body.extension.id, 'morphir-avro-ts');
    assert.equal(body.artifacts.map((a) => a.path), ['acme/customer/customer/Customer.avsc']);
    const schema = JSON.parse(body.artifacts[0].content);
    assert.is(schema.type, 'record');
    assert.is(schema.name, 'Customer');

    const idl = (await (await authed(`${base}?representation=idl`, { method: 'POST', body: customerIr })).json()) as GenerateResponseBody;
    assert.ok(idl.artifacts.every((a) => a.path.endsWith('.avdl')), JSON.stringify(idl.artifacts.map((a) => a.path)));

    assert.is((await authed(base, { method: 'POST', body: '{"not json' })).status, 400);
    const refused = await authed(`${base}?target=protobuf`, { method: 'POST', body: customerIr });
    assert.is(refused.status, 400);
    assert.is(((await refused.json()) as { error: { code: number } }).error.code, -32013);
    assert.is((await authed(base)).status, 405);

    // The same MEP HTTP wire as mep serve --http: an HttpChannel-style exchange, ids from 0 …
    const mepUrl = `${base}extensions/avro`;
    const rpc = async (message: object, accept = 'application/json'): Promise<Response> =>
      authed(mepUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(message) });
    const init = (await (await rpc({ jsonrpc: '2.0', id: 0, method: 'morphir.initialize', params: { protocolVersions: ['0.1'], host: { name: 'morphir-host', version: '0.1.0' } } })).json()) as { id: number; result: { extension: { id: string } } };
    assert.is(init.id, 0);
    assert.is(init.result.extension.id, 'morphir-avro-ts');
    const ir = JSON.parse(customerIr) as Record<string, unknown>;
    const generated = (await (await rpc({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'avro', options: {} } })).json()) as { id: number; result: { artifacts: { path: string }[] } };
    assert.is(generated.id, 1);
    assert.equal(generated.result.artifacts.map((a) => a.path), ['acme/customer/customer/Customer.avsc']);
    const unknown = await rpc({ jsonrpc: '2.0', id: 'x', method: 'morphir.nothing' });
    assert.is(unknown.status, 200);
    assert.is(((await unknown.json()) as { error: { code: number } }).error.code, -32601);
    assert.equal(await (await rpc({ jsonrpc: '2.0', id: 2, method: 'morphir.shutdown' })).json(), { jsonrpc: '2.0', id: 2, result: null });
    assert.is((await authed(mepUrl, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).status, 415);
    // … SSE when asked, the response as the last event …
    const streamed = await (await rpc({ jsonrpc: '2.0', id: 3, method: 'morphir.backend.generate', params: { ir, target: 'avro', options: {} } }, 'text/event-stream')).text();
    const events = streamed.split('\n\n').filter((e) => e.startsWith('event: message')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { id?: number });
    assert.is(events[events.length - 1]?.id, 3);
    // … and the runtime's own HTTP client transport runs a session against the worker.
    const session = createSession({ transport: createHttpTransport({ url: mepUrl, token: MEP_TOKEN }) });
    try {
      await session.start();
      const result = await session.generate({ ir, target: 'avro', options: {} });
      assert.ok(result.success);
    } finally {
      await session.close();
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    assert.not.ok(isAlive(child.pid as number), 'workerd is gone');
    await rm(dir, { recursive: true, force: true });
  }
});

Workerd.run();
