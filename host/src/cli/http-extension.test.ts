import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from '../registry/install.ts';
import { readLock } from '../registry/lock.ts';
import { registryPaths } from '../registry/paths.ts';
import { repoRoot, withProject, type TempProject } from '../registry/test-support.ts';
import { startTestHttp } from '../serve/testing/http.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const wellBehaved = join(repoRoot, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const TOKEN = 'remote-token-0123456789-abcdefghij';

/**
 * A JSON-RPC server that is not ours (every POST answered alone, errors as 200), reporting the
 * identity `acme.remote` at `state.version`; it records the Authorization header of each POST.
 */
async function startRemote(options: { token?: string } = {}): Promise<{ url: string; state: { version: string }; authorizations: (string | undefined)[]; close(): Promise<void> }> {
  const state = { version: '1.0.0' };
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      authorizations.push(req.headers.authorization);
      if (options.token && req.headers.authorization !== `Bearer ${options.token}`) return void res.writeHead(401).end();
      const request = JSON.parse(body) as { id: unknown; method: string; params?: { ir?: unknown } };
      const answer = (member: object): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...member }));
      const extension = { id: 'acme.remote', name: 'Remote echo', version: state.version };
      const capabilities = { backend: { targets: ['echo'], irVersions: ['3'], generate: true } };
      if (request.method === 'morphir.initialize') return answer({ result: { protocolVersion: '0.1', extension, capabilities } });
      if (request.method === 'morphir.backend.generate') return answer({ result: { success: true, artifacts: [{ path: 'echo/remote.json', content: JSON.stringify(request.params?.ir), binary: false }], diagnostics: [] } });
      if (request.method === 'morphir.shutdown') return answer({ result: null });
      if (request.method === 'morphir.extension.capabilities') return answer({ result: capabilities });
      return answer({ error: { code: -32601, message: `Method not found: ${request.method}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mep`, state, authorizations, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** A package directory holding only an extension.json for `runtime: "http"`. */
async function writeRemotePackage(t: TempProject, manifest: Record<string, unknown>): Promise<string> {
  const dir = join(t.root, `pkg-${Math.random().toString(36).slice(2)}`);
  await mkdir(dir);
  await writeFile(join(dir, 'extension.json'), JSON.stringify({ id: 'acme.remote', name: 'Remote echo', version: '1.0.0', runtime: 'http', ...manifest }));
  return dir;
}

async function generate(t: TempProject, extension: string, output = 'out'): Promise<{ code: number; stdout: string; stderr: string }> {
  await writeFile(join(t.project, 'ir.json'), JSON.stringify(ir));
  const io = captureIo(t.project);
  const code = await main(['generate', '--extension', extension, '--target', 'echo', '--input', 'ir.json', '--output', output, '--json'], io);
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n') };
}

const Remote = suite('an installed extension served over HTTP (manifest runtime "http")');

Remote('should install it (only its manifest), pin the URL and the identity it reports, and run mep generate through it', () =>
  withProject(async (t) => {
    const remote = await startRemote();
    try {
      const paths = registryPaths({ cwd: t.project });
      const result = await installExtension({ source: await writeRemotePackage(t, { url: remote.url }), paths });
      assert.is(result.runtime, 'http');
      assert.equal(await readdir(result.dir), ['extension.json']);
      const entry = (await readLock(paths.project.lock)).extensions['acme.remote'];
      assert.is(entry?.runtime, 'http');
      assert.is(entry?.url, remote.url);
      assert.equal(entry?.identity, { id: 'acme.remote', version: '1.0.0' });
      assert.equal((entry?.claims as { capabilities: { backend: { targets: string[] } } }).capabilities.backend.targets, ['echo']);

      const run = await generate(t, 'acme.remote');
      assert.is(run.code, 0, run.stderr);
      assert.equal(JSON.parse(await readFile(join(t.project, 'out/echo/remote.json'), 'utf8')), ir);

      // mep list checks it against its lock like any installed extension (the manifest is the pinned file).
      const io = captureIo(t.project);
      assert.is(await main(['list'], io), 0, io.stderr.join('\n'));
      assert.match(io.stdout.join('\n'), /acme\.remote/);
      assert.not.match(io.stdout.join('\n') + io.stderr.join('\n'), /mismatch|not pinned/i);
    } finally {
      await remote.close();
    }
  }),
);

Remote('should refuse to run it when the server now reports another identity, and write nothing', () =>
  withProject(async (t) => {
    const remote = await startRemote();
    try {
      await installExtension({ source: await writeRemotePackage(t, { url: remote.url }), paths: registryPaths({ cwd: t.project }) });
      remote.state.version = '2.0.0';
      const run = await generate(t, 'acme.remote');
      assert.is(run.code, 3, run.stderr);
      assert.match(run.stderr, /acme\.remote 2\.0\.0/);
      assert.match(run.stderr, /pins acme\.remote 1\.0\.0/);
      assert.match(run.stderr, /mep install/);
      assert.not.ok(await readdir(join(t.project, 'out')).catch(() => undefined), 'nothing was written');
    } finally {
      await remote.close();
    }
  }),
);

Remote('should send the token the manifest names, resolved as a secret the configuration approves, and never print it', () =>
  withProject(async (t) => {
    const remote = await startRemote({ token: TOKEN });
    const reference = 'env("ACME_REMOTE_TOKEN")';
    process.env.ACME_REMOTE_TOKEN = TOKEN;
    try {
      const paths = registryPaths({ cwd: t.project });
      const source = await writeRemotePackage(t, { url: remote.url, token: reference, permissions: { secrets: [reference] } });
      // Not approved yet: refused before anything is sent with it.
      const refused = await installExtension({ source, paths }).then(() => ({ code: 'installed', message: 'installed' }), (e: unknown) => e as { code?: string; message: string });
      assert.is(refused.code, LocalErrorCode.Registry, refused.message);
      assert.match(refused.message, /config\.json/);
      assert.not.ok(remote.authorizations.some((a) => a?.includes(TOKEN)));

      await mkdir(join(t.project, '.mep'), { recursive: true });
      await writeFile(paths.project.config, JSON.stringify({ secrets: { 'acme.remote': [reference] } }));
      await installExtension({ source, paths });
      const run = await generate(t, 'acme.remote');
      assert.is(run.code, 0, run.stderr);
      assert.ok(remote.authorizations.length > 2);
      assert.is(remote.authorizations.at(-1), `Bearer ${TOKEN}`);
      assert.not.match(run.stdout + run.stderr, TOKEN);
      assert.not.match(await readFile(paths.project.lock, 'utf8'), TOKEN);
    } finally {
      delete process.env.ACME_REMOTE_TOKEN;
      await remote.close();
    }
  }),
);

Remote('should refuse a manifest for runtime "http" without a URL, with credentials in it, with an entry, or with a token it does not list', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /url/],
      [{ url: 'ftp://example.com/x' }, /url/],
      [{ url: 'http://user:secret@example.com/x' }, /token/],
      [{ url: 'http://example.com/x', entry: 'bin/ext.mjs' }, /entry/],
      [{ url: 'http://example.com/x', token: 'env("T")' }, /permissions\.secrets/],
    ];
    for (const [manifest, message] of cases) {
      const error = await installExtension({ source: await writeRemotePackage(t, manifest), paths }).then(() => ({ code: 'installed', message: 'installed' }), (e: unknown) => e as { code?: string; message: string });
      assert.is(error.code, LocalErrorCode.Registry, JSON.stringify(manifest));
      assert.match(error.message, message);
    }
    assert.equal((await readLock(paths.project.lock)).extensions, {});
  }),
);

Remote('should run an extension installed from mep serve --http (the well-behaved fixture)', () =>
  withProject(async (t) => {
    const served = await startTestHttp({ echo: wellBehaved });
    try {
      const source = join(t.root, 'served');
      await mkdir(source);
      await writeFile(join(source, 'extension.json'), JSON.stringify({ id: 'mep.fixture.well-behaved', name: 'served', version: '0.1.0', runtime: 'http', url: `${served.listener.url}/extensions/echo` }));
      await installExtension({ source, paths: registryPaths({ cwd: t.project }) });
      const run = await generate(t, 'mep.fixture.well-behaved');
      assert.is(run.code, 0, run.stderr);
      assert.equal(JSON.parse(await readFile(join(t.project, 'out/echo/acme.json'), 'utf8')), ir);
    } finally {
      await served.close();
    }
  }),
);

Remote.run();
