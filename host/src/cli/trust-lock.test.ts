import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from '../registry/install.ts';
import { registryPaths } from '../registry/paths.ts';
import { backend, configurableFixture, withProject, writePackage, type TempProject } from '../registry/test-support.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { startRemote, writeRemotePackage } from './testing/remote-server.ts';

// A repository the user clones ships .mep/extensions and its lock: a project-scope process
// extension (native code, the user's rights) whose pinned claims make selection pick it. It runs
// only once the user trusted the project's lock with `mep trust`, and not after the lock changes.
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

async function run(t: TempProject, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo(t.project);
  const code = await main(argv, io);
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n') };
}

const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false);

/** The configurable fixture that first writes `marker` (proof that it ran at all). */
async function markingPackage(dir: string, id: string, marker: string): Promise<string> {
  await writePackage(dir, { id, capabilities: backend('clone') });
  const fixture = (await readFile(configurableFixture, 'utf8')).replace(/^#!.*\n/, '');
  await writeFile(join(dir, 'bin/ext.mjs'), `#!/usr/bin/env node\nimport { writeFileSync as markRan } from 'node:fs';\nmarkRan(${JSON.stringify(marker)}, 'ran');\n${fixture}`);
  return dir;
}

/** The author's install in project scope, then the clone: the user's $MEP_HOME never trusted anything. */
async function cloneWith(t: TempProject, id: string, marker: string): Promise<void> {
  const paths = registryPaths({ cwd: t.project });
  await installExtension({ source: await markingPackage(join(t.root, id), id, marker), paths, probe: true });
  await rm(join(t.home, 'trusted.json'), { force: true });
  await rm(marker, { force: true });
  await writeFile(join(t.project, 'ir.json'), JSON.stringify(ir));
}

function assertUntrusted(result: { code: number; stdout: string; stderr: string }, lock: string, state: string): void {
  assert.is(result.code, 3, result.stderr);
  const error = JSON.parse(result.stdout).error;
  assert.is(error.code, LocalErrorCode.Registry);
  assert.is(error.data.reason, 'untrusted-lock');
  assert.is(error.data.state, state);
  assert.is(error.data.lock, lock);
  assert.match(error.message, /\.mep\/extensions\.lock/);
  assert.match(error.message, /mep trust/);
}

const Lock = suite("a cloned project's process extension runs only once its lock is trusted");

Lock('selection and --extension <id> refuse it untrusted (nothing spawned or written); mep trust runs it; a changed lock refuses it again', () =>
  withProject(async (t) => {
    const marker = join(t.root, 'ran.marker');
    await cloneWith(t, 'acme.clone', marker);
    const lock = registryPaths({ cwd: t.project }).project.lock;
    const generate = (out: string, ...extra: string[]) => run(t, ['generate', ...extra, '--target', 'clone', '--input', 'ir.json', '--output', out, '--json']);

    assertUntrusted(await generate('out1'), lock, 'untrusted');
    assertUntrusted(await generate('out2', '--extension', 'acme.clone'), lock, 'untrusted');
    assert.not.ok(await exists(marker), 'the extension was never started');
    assert.not.ok(await exists(join(t.project, 'out1')));
    assert.not.ok(await exists(join(t.project, 'out2')));
    const listTrust = async () => JSON.parse((await run(t, ['list', '--json'])).stdout).extensions.map((e: { trust?: string }) => e.trust ?? 'ok');
    assert.equal(await listTrust(), ['untrusted'], 'mep list says so');

    const trusted = await run(t, ['trust']);
    assert.is(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, /extensions\.lock/);
    assert.match(trusted.stdout, /acme\.clone 1\.0\.0 \(process\)/);
    const ok = await generate('out3');
    assert.is(ok.code, 0, ok.stderr);
    assert.ok(await exists(marker), 'trusted: it ran');
    assert.equal(await listTrust(), ['ok']);

    // A pull swaps the artifact and its hash in the lock: untrusted again until re-trusted.
    await rm(marker);
    const entry = join(t.project, '.mep/extensions/acme.clone/bin/ext.mjs');
    const swapped = `${await readFile(entry, 'utf8')}\n// another version\n`;
    await writeFile(entry, swapped);
    const text = await readFile(lock, 'utf8');
    const doc = JSON.parse(text);
    await writeFile(lock, text.replace(doc.extensions['acme.clone'].sha256, createHash('sha256').update(swapped).digest('hex')));
    assertUntrusted(await generate('out4'), lock, 'changed');
    assertUntrusted(await generate('out5', '--extension', 'acme.clone'), lock, 'changed');
    assert.not.ok(await exists(marker));
    assert.equal(await listTrust(), ['changed']);
    const listed = JSON.parse((await run(t, ['trust', '--list', '--json'])).stdout).trusted;
    assert.equal(listed.map((e: { path: string; state: string }) => [e.path, e.state]), [[lock, 'changed']]);

    // The user names the file: their own choice, it runs as before.
    const byPath = await run(t, ['generate', '--extension', './.mep/extensions/acme.clone/bin/ext.mjs', '--target', 'clone', '--input', 'ir.json', '--output', 'out6']);
    assert.ok(await exists(marker), byPath.stderr);
  }),
);

Lock("mep install by the user trusts the lock it wrote, but never an untrusted lock's other process extensions", () =>
  withProject(async (t) => {
    const marker = join(t.root, 'ran.marker');
    await cloneWith(t, 'acme.clone', marker);
    const lock = registryPaths({ cwd: t.project }).project.lock;
    const mine = join(t.root, 'mine.marker');
    const installed = await run(t, ['install', await markingPackage(join(t.root, 'mine'), 'acme.mine', mine)]);
    assert.is(installed.code, 0, installed.stderr);
    assert.match(installed.stderr, /mep trust/, 'says why it will not run yet');
    assertUntrusted(await run(t, ['generate', '--extension', 'acme.clone', '--input', 'ir.json', '--output', 'o1', '--json']), lock, 'untrusted');
    assertUntrusted(await run(t, ['generate', '--extension', 'acme.mine', '--input', 'ir.json', '--output', 'o2', '--json']), lock, 'untrusted');
    assert.not.ok(await exists(marker));
    assert.not.ok(await exists(mine));

    // In a project whose lock the user trusts (or that has none), an install keeps it trusted, and so does a remove.
    assert.is((await run(t, ['trust'])).code, 0);
    assert.is((await run(t, ['remove', 'acme.clone'])).code, 0);
    const again = await run(t, ['install', join(t.root, 'mine')]);
    assert.is(again.code, 0, again.stderr);
    assert.not.match(again.stderr, /mep trust/);
    const ok = await run(t, ['generate', '--extension', 'acme.mine', '--input', 'ir.json', '--output', 'o3']);
    assert.is(ok.code, 0, ok.stderr);
    assert.ok(await exists(mine));
    // mep untrust forgets the lock too.
    assert.match((await run(t, ['untrust'])).stdout, /extensions\.lock/);
    assertUntrusted(await run(t, ['generate', '--extension', 'acme.mine', '--input', 'ir.json', '--output', 'o4', '--json']), lock, 'untrusted');
  }),
);

Lock("a cloned project's http extension is sent nothing until its lock is trusted", () =>
  withProject(async (t) => {
    const server = await startRemote();
    try {
      await installExtension({ source: await writeRemotePackage(t.root, { url: server.url }), paths: registryPaths({ cwd: t.project }) });
      await rm(join(t.home, 'trusted.json'));
      await writeFile(join(t.project, 'ir.json'), JSON.stringify(ir));
      server.authorizations.length = 0;
      const generate = ['generate', '--target', 'echo', '--input', 'ir.json', '--output', 'out', '--json'];
      assertUntrusted(await run(t, generate), registryPaths({ cwd: t.project }).project.lock, 'untrusted');
      assert.is(server.authorizations.length, 0, 'no request reached the server');
      assert.is((await run(t, ['trust'])).code, 0);
      const ok = await run(t, generate);
      assert.is(ok.code, 0, ok.stderr);
      assert.ok(server.authorizations.length > 0);
    } finally {
      await server.close();
    }
  }),
);

Lock('a user-scope process extension needs no trust', () =>
  withProject(async (t) => {
    const marker = join(t.root, 'ran.marker');
    await installExtension({ source: await markingPackage(join(t.root, 'user'), 'acme.user', marker), paths: registryPaths({ cwd: t.project }), scope: 'user', probe: true });
    await rm(marker);
    await rm(join(t.home, 'trusted.json'), { force: true });
    await writeFile(join(t.project, 'ir.json'), JSON.stringify(ir));
    const ok = await run(t, ['generate', '--target', 'clone', '--input', 'ir.json', '--output', 'out']);
    assert.is(ok.code, 0, ok.stderr);
    assert.ok(await exists(marker));
  }),
);

Lock.run();
