import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode } from '../protocol/errors.ts';
import { createHostServer } from './host-server.ts';
import { listenHttp } from './http-node.ts';
import { createNodeOpener } from './node-open.ts';
import { childProcesses, isAlive } from './testing/processes.ts';
import { postRpc, startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mep = join(root, 'bin/mep.mjs');
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const initialize = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'morphir.initialize', params: { protocolVersions: ['0.1'], host: { name: 'morphir-host', version: '0.1.0' } } });
const generate = (id: number | string, options: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'morphir.backend.generate', params: { ir, target: 'echo', options } });

/** `mep serve --http 127.0.0.1:0` as a child; resolves with its URL once it listens. */
function startServe(args: string[]): Promise<{ url: string; pid: number; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [mep, 'serve', '--http', '127.0.0.1:0', '--verbose', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve({ url: match[1] as string, pid: child.pid as number, stop: () => (child.kill('SIGTERM'), exited) });
    });
    void exited.then((code) => reject(new Error(`mep serve exited (${code}): ${stderr}`)));
  });
}

const Plain = suite('mep serve --http :: an HttpChannel-style client');

Plain('should answer initialize → generate → shutdown with ids from 0 echoed, errors as 200, and leave no child after SIGTERM', async () => {
  const serve = await startServe(['--extension', wellBehaved]);
  try {
    // The reference host: one POST per request to the URL as given, ids its own counter from 0.
    const url = `${serve.url}/`;
    const init = await postRpc(url, initialize(0));
    assert.is(init.status, 200);
    assert.is(init.contentType, 'application/json');
    assert.is(init.body.id, 0);
    assert.is((init.body.result as { protocolVersion: string }).protocolVersion, '0.1');
    assert.is((init.body.result as { extension: { id: string } }).extension.id, 'mep.fixture.well-behaved');

    const generated = await postRpc(url, generate(1));
    assert.is(generated.body.id, 1);
    const result = generated.body.result as { success: boolean; artifacts: { path: string }[] };
    assert.ok(result.success);
    assert.is(result.artifacts[0]?.path, 'echo/acme.json');

    // The same extension at /extensions/<file name>, with a string id.
    const named = await postRpc(`${serve.url}/extensions/well-behaved`, generate('call-7'));
    assert.is(named.body.id, 'call-7');

    const unknown = await postRpc(url, { jsonrpc: '2.0', id: 2, method: 'morphir.nothing' });
    assert.is(unknown.status, 200);
    assert.is(unknown.body.id, 2);
    assert.is((unknown.body.error as { code: number }).code, ErrorCode.MethodNotFound);

    const bad = await postRpc(url, { jsonrpc: '2.0', id: 3, method: 'morphir.backend.generate', params: { target: 'echo' } });
    assert.is(bad.status, 200);
    assert.is((bad.body.error as { code: number }).code, ErrorCode.InvalidParams);

    const shutdown = await postRpc(url, { jsonrpc: '2.0', id: 4, method: 'morphir.shutdown' });
    assert.equal(shutdown.body, { jsonrpc: '2.0', id: 4, result: null });

    const notification = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'morphir.exit' }) });
    assert.is(notification.status, 202);
    assert.ok(childProcesses(serve.pid).length > 0, 'the pooled extension runs');
  } finally {
    const children = childProcesses(serve.pid).map((c) => c.pid);
    assert.is(await serve.stop(), 0);
    for (const pid of children) assert.not.ok(isAlive(pid), `extension ${pid} outlived the server`);
  }
});

Plain('should refuse a protocol version the extension does not speak with -32011, as 200', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const reply = await postRpc(served.listener.url, { ...initialize(0), params: { protocolVersions: ['9.9'], host: { name: 'h', version: '1' } } });
    assert.is(reply.status, 200);
    assert.is((reply.body.error as { code: number }).code, ErrorCode.ProtocolVersionMismatch);
  } finally {
    await served.close();
  }
});

Plain('should answer a call past --call-timeout with -32010 ERR_TIMEOUT as 200 (the client\'s id), and serve the next call', async () => {
  // 1 s, not less: after the timeout ends the session, the next call's fresh session answers
  // `initialize` under the same deadline, which a loaded machine (load 15+) took past 300 ms.
  const serve = await startServe(['--extension', wellBehaved, '--call-timeout', '1s']);
  try {
    const late = await postRpc(`${serve.url}/`, generate(0, { delayMs: 10_000 }));
    assert.is(late.status, 200);
    assert.is(late.body.id, 0);
    const error = late.body.error as { code: number; data: { localCode: string; limit: string; timeoutMs: number; id: unknown } };
    assert.is(error.code, -32010);
    assert.equal([error.data.localCode, error.data.limit, error.data.timeoutMs], ['ERR_TIMEOUT', 'callTimeoutMs', 1000]);
    // The error names the call by the client's id, not by the server's own id for it ("h1.1").
    assert.is(error.data.id, 0, JSON.stringify(error));
    assert.not.match(JSON.stringify(late.body), /"h\d+\.\d+"/);
    const named = await postRpc(`${serve.url}/`, generate('late-call', { delayMs: 10_000 }));
    assert.is((named.body.error as { data: { id: unknown } }).data.id, 'late-call', JSON.stringify(named.body));
    const next = await postRpc(`${serve.url}/`, generate(1));
    assert.ok((next.body.result as { success: boolean }).success, JSON.stringify(next.body));
  } finally {
    await serve.stop();
  }
});

Plain('should serve mep generate --extension http://… (the HTTP client transport) end to end', async () => {
  const serve = await startServe(['--extension', wellBehaved]);
  const dir = await mkdtemp(join(tmpdir(), 'mep-http-generate-'));
  try {
    await writeFile(join(dir, 'ir.json'), JSON.stringify(ir));
    const run = spawnSync(process.execPath, [mep, 'generate', '--input', join(dir, 'ir.json'), '--target', 'echo', '--extension', `${serve.url}/extensions/well-behaved`, '--output', join(dir, 'out')], { cwd: root, encoding: 'utf8' });
    assert.is(run.status, 0, run.stderr);
    assert.equal(JSON.parse(await readFile(join(dir, 'out/echo/acme.json'), 'utf8')), ir);
  } finally {
    await serve.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

const Sessions = suite('mep serve --http :: sessions');

Sessions('should run MEP lifecycle once per pooled session, and once per request with fresh sessions', async () => {
  for (const [fresh, expected] of [[false, 1], [true, 3]] as const) {
    const served = await startTestHttp({ echo: wellBehaved }, { sessions: { fresh } });
    try {
      for (let id = 0; id < 3; id++) assert.ok((await postRpc(`${served.listener.url}/`, generate(id))).body.result);
      const initializes = served.sent.filter((m) => m.method === 'morphir.initialize').length;
      assert.is(initializes, expected, `fresh ${fresh}`);
      // MEP 0.1, Lifecycle: the extension saw initialized before any operation.
      const first = served.sent.findIndex((m) => m.method === 'morphir.backend.generate');
      assert.ok(served.sent.findIndex((m) => m.method === 'morphir.initialized') < first);
    } finally {
      await served.close();
    }
    if (fresh) assert.ok(served.sent.filter((m) => m.method === 'morphir.exit').length >= 3, 'each fresh session ended with exit');
  }
});

Sessions('should refuse a call past --max-sessions with ERR_LIMIT while the others run', async () => {
  const listener = await listenHttp(createHostServer({ open: createNodeOpener(), maxSessions: 1, closeGraceMs: 500 }), { port: 0, extensions: { echo: wellBehaved } });
  try {
    const slow = postRpc(`${listener.url}/`, generate(0, { delayMs: 400 }));
    // Wait until the first call holds the only session: its info says one slot is taken.
    for (;;) {
      const info = (await (await fetch(`${listener.url}/info`)).json()) as { slots: number };
      if (info.slots === 1) break;
    }
    const refused = await postRpc(`${listener.url}/`, generate(1));
    assert.is(refused.status, 200);
    assert.is((refused.body.error as { data: { localCode: string } }).data.localCode, 'ERR_LIMIT');
    assert.ok((await slow).body.result);
  } finally {
    await listener.close();
  }
});

Plain.run();
Sessions.run();
