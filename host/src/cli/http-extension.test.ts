import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from '../registry/install.ts';
import { readLock } from '../registry/lock.ts';
import { trustProjectConfig } from '../registry/trust.ts';
import { registryPaths } from '../registry/paths.ts';
import { repoRoot, withProject, type TempProject } from '../registry/test-support.ts';
import { startTestHttp } from '../serve/testing/http.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { startRemote, writeRemotePackage, type TestRemote } from './testing/remote-server.ts';

const wellBehaved = join(repoRoot, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const TOKEN = 'remote-token-0123456789-abcdefghij';

const Remote = suite('an installed extension served over HTTP (manifest runtime "http")');

/** One remote for the whole suite (a server like the reference host's fixture); each case starts it afresh: version 1.0.0, no token, nothing recorded. */
let shared: TestRemote | undefined;
const sharedRemote = (): TestRemote => shared as TestRemote;
Remote.before(async () => void (shared = await startRemote()));
Remote.after(() => shared?.close());
Remote.before.each(() => {
  sharedRemote().state.version = '1.0.0';
  delete sharedRemote().state.token;
  sharedRemote().authorizations.length = 0;
});

async function generate(t: TempProject, extension: string, output = 'out'): Promise<{ code: number; stdout: string; stderr: string }> {
  await writeFile(join(t.project, 'ir.json'), JSON.stringify(ir));
  const io = captureIo(t.project);
  const code = await main(['generate', '--extension', extension, '--target', 'echo', '--input', 'ir.json', '--output', output, '--json'], io);
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n') };
}

Remote('should install it (only its manifest), pin the URL and the identity it reports, and run mep generate through it', () =>
  withProject(async (t) => {
    const remote = sharedRemote();
    const paths = registryPaths({ cwd: t.project });
    const result = await installExtension({ source: await writeRemotePackage(t.root, { url: remote.url }), paths });
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
  }),
);

Remote('should refuse to run it when the server now reports another identity, and write nothing', () =>
  withProject(async (t) => {
    const remote = sharedRemote();
    await installExtension({ source: await writeRemotePackage(t.root, { url: remote.url }), paths: registryPaths({ cwd: t.project }) });
    remote.state.version = '2.0.0';
    const run = await generate(t, 'acme.remote');
    assert.is(run.code, 3, run.stderr);
    assert.match(run.stderr, /acme\.remote 2\.0\.0/);
    assert.match(run.stderr, /pins acme\.remote 1\.0\.0/);
    assert.match(run.stderr, /mep install/);
    assert.not.ok(await readdir(join(t.project, 'out')).catch(() => undefined), 'nothing was written');
  }),
);

Remote('should send the token the manifest names, resolved as a secret the configuration approves, and never print it', () =>
  withProject(async (t) => {
    const remote = sharedRemote();
    remote.state.token = TOKEN;
    const reference = 'env("ACME_REMOTE_TOKEN")';
    process.env.ACME_REMOTE_TOKEN = TOKEN;
    try {
      const paths = registryPaths({ cwd: t.project });
      const source = await writeRemotePackage(t.root, { url: remote.url, token: reference, permissions: { secrets: [reference] } });
      // Not approved yet: refused before anything is sent with it.
      const refused = await installExtension({ source, paths }).then(() => ({ code: 'installed', message: 'installed' }), (e: unknown) => e as { code?: string; message: string });
      assert.is(refused.code, LocalErrorCode.Registry, refused.message);
      assert.match(refused.message, /config\.json/);
      assert.not.ok(remote.authorizations.some((a) => a?.includes(TOKEN)));

      await mkdir(join(t.project, '.mep'), { recursive: true });
      await writeFile(paths.project.config, JSON.stringify({ secrets: { 'acme.remote': [reference] } }));
      await trustProjectConfig(paths);
      await installExtension({ source, paths });
      const run = await generate(t, 'acme.remote');
      assert.is(run.code, 0, run.stderr);
      assert.ok(remote.authorizations.length > 2);
      assert.is(remote.authorizations.at(-1), `Bearer ${TOKEN}`);
      assert.not.match(run.stdout + run.stderr, TOKEN);
      assert.not.match(await readFile(paths.project.lock, 'utf8'), TOKEN);
    } finally {
      delete process.env.ACME_REMOTE_TOKEN;
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
      const error = await installExtension({ source: await writeRemotePackage(t.root, manifest), paths }).then(() => ({ code: 'installed', message: 'installed' }), (e: unknown) => e as { code?: string; message: string });
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
