import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { link, mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { packExtension } from './pack.ts';
import { makeFifo, unlessHung } from '../files/testing/special-files.ts';
import { registryPaths } from './paths.ts';
import { backend, withProject, writePackage } from './test-support.ts';
import type { TempProject } from './test-support.ts';

const git = promisify(execFile);

/** Every file under `dir`, relative and sorted. */
async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((d) => !d.isDirectory())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

/** A project the way an author has it: sources, a big node_modules, the built entry. */
async function authorProject(t: TempProject, manifest: Record<string, unknown> = {}): Promise<string> {
  const dir = join(t.root, 'author');
  await writePackage(dir, { id: 'acme.author', capabilities: backend('a'), entry: 'dist/ext.mjs', manifest });
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src/extension.ts'), 'export default {};\n');
  await writeFile(join(dir, 'package.json'), '{"name":"author"}\n');
  for (let p = 0; p < 40; p++) {
    await mkdir(join(dir, `node_modules/pkg-${p}/lib`), { recursive: true });
    for (let f = 0; f < 50; f++) await writeFile(join(dir, `node_modules/pkg-${p}/lib/f${f}.js`), 'x'.repeat(1024));
  }
  return dir;
}

const Stage = suite('registry :: what a directory install copies');

Stage('should copy only extension.json and the entry, never node_modules or sources', () =>
  withProject(async (t) => {
    const dir = await authorProject(t);
    const result = await installExtension({ source: dir, paths: registryPaths({ cwd: t.project }) });
    assert.equal(await files(result.dir), ['dist/ext.mjs', 'extension.json']);
    let bytes = 0;
    for (const f of await files(result.dir)) bytes += (await stat(join(result.dir, f))).size;
    assert.ok(bytes < 64 * 1024, `${bytes} bytes installed`);
  }),
);

Stage('should copy the files the manifest lists (files and directories), and nothing else', () =>
  withProject(async (t) => {
    const dir = await authorProject(t, { files: ['data', 'README.md', 'dist/ext.mjs'] });
    await mkdir(join(dir, 'data/nested'), { recursive: true });
    await writeFile(join(dir, 'data/nested/table.json'), '{}');
    await writeFile(join(dir, 'data/inside-link-target.txt'), 'target');
    await symlink('inside-link-target.txt', join(dir, 'data/link.txt'));
    await writeFile(join(dir, 'README.md'), '# hi');
    const result = await installExtension({ source: dir, paths: registryPaths({ cwd: t.project }) });
    assert.equal(await files(result.dir), ['README.md', 'data/inside-link-target.txt', 'data/link.txt', 'data/nested/table.json', 'dist/ext.mjs', 'extension.json']);
    // An inside link is installed as the file it names.
    assert.ok((await stat(join(result.dir, 'data/link.txt'))).isFile());
    assert.is(await readFile(join(result.dir, 'data/link.txt'), 'utf8'), 'target');
  }),
);

Stage('should refuse a listed file that is missing, or that leaves the package', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    const missing = await installExtension({ source: await authorProject(t, { files: ['nope.txt'] }), paths }).catch((e) => e);
    assert.equal([missing.code, missing.data?.reason, missing.data?.file], [LocalErrorCode.Registry, 'missing-file', 'nope.txt']);
    for (const bad of ['../outside.txt', '/etc/passwd', 'a/../../x', '', '.']) {
      const error = await installExtension({ source: await authorProject(t, { files: [bad] }), paths }).catch((e) => e);
      assert.equal([error.code, error.data?.issues?.[0]?.path], [LocalErrorCode.Registry, ['files', 0]], JSON.stringify(bad));
    }
    await writeFile(join(t.root, 'secret.txt'), 'outside');
    const dir = await authorProject(t, { files: ['leak.txt', 'dir'] });
    await symlink(join(t.root, 'secret.txt'), join(dir, 'leak.txt'));
    const linkOut = await installExtension({ source: dir, paths }).catch((e) => e);
    assert.equal([linkOut.code, linkOut.data?.reason], [LocalErrorCode.Registry, 'unsafe-entry']);
    assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined));
  }),
);

Stage('should refuse an entry that is a symlink leaving the package (wasm and process), never copying what it points to', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    const outside = join(t.root, 'outside');
    await mkdir(join(outside, 'bin'), { recursive: true });
    await writeFile(join(outside, 'bin/ext.mjs'), 'process.exit(0) // not in the package');
    await writeFile(join(outside, 'ext.wasm'), 'not in the package');
    const relink = (path: string, target: string) => async (dir: string) => {
      await rm(join(dir, path), { recursive: true, force: true });
      await symlink(target, join(dir, path));
    };
    const cases: [string, (dir: string) => Promise<void>, Record<string, unknown>][] = [
      ['a process entry linking out', relink('bin/ext.mjs', join(outside, 'bin/ext.mjs')), {}],
      ['a process entry under a directory linking out', relink('bin', join(outside, 'bin')), {}],
      ['a wasm entry linking out', relink('ext.wasm', join(outside, 'ext.wasm')), { runtime: 'wasm', entry: 'ext.wasm' }],
      ['a per-platform executable linking out', relink('bin/crm-linux-amd64', join(outside, 'bin/ext.mjs')), { entry: 'bin/crm' }],
      ['a relative link climbing out', relink('bin/ext.mjs', '../../outside/bin/ext.mjs'), {}],
    ];
    for (const [index, [name, prepare, manifest]] of cases.entries()) {
      const dir = await writePackage(join(t.root, `pkg-${index}`), { id: 'acme.link', capabilities: backend('l'), manifest });
      await prepare(dir);
      const error = await installExtension({ source: dir, paths, probe: false, platform: { os: 'linux', arch: 'amd64' } }).catch((e) => e);
      assert.equal([error.code, error.data?.reason], [LocalErrorCode.Registry, 'unsafe-entry'], name);
    }
    assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined));
  }),
);

Stage('should refuse a git package whose entry is a committed symlink out of the package', () =>
  withProject(async (t) => {
    const work = join(t.root, 'work');
    await writePackage(join(work, 'ext'), { id: 'acme.git', capabilities: backend('g') });
    await rm(join(work, 'ext/bin/ext.mjs'));
    await writeFile(join(t.root, 'outside.mjs'), 'process.exit(0) // not in the repository');
    await symlink(join(t.root, 'outside.mjs'), join(work, 'ext/bin/ext.mjs'));
    const g = (...args: string[]) => git('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    await g('init', '--quiet', '-b', 'main');
    await g('add', '.');
    await g('commit', '--quiet', '-m', 'v1');
    const io = captureIo(t.project);
    assert.is(await main(['install', `${pathToFileURL(work).href}//ext`, '--json'], io), 3);
    assert.is(JSON.parse(io.stdout.join('\n')).error.data.reason, 'unsafe-entry');
    assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined));
  }),
);

Stage('should refuse a package whose extension.json is a symlink out of it, never reading or showing what it points to (git and directory) :: hostile', () =>
  withProject(async (t) => {
    // A file of the user's outside the package: before, its first characters were printed in the JSON error.
    const secret = join(t.root, 'id_ed25519');
    await writeFile(secret, 'OPENSSH-PRIVATE-KEY-abcdef\n');
    const work = join(t.root, 'work');
    await writePackage(join(work, 'ext'), { id: 'acme.git', capabilities: backend('g') });
    await rm(join(work, 'ext/extension.json'));
    await symlink(secret, join(work, 'ext/extension.json'));
    const g = (...args: string[]) => git('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    await g('init', '--quiet', '-b', 'main');
    await g('add', '.');
    await g('commit', '--quiet', '-m', 'v1');
    for (const source of [`${pathToFileURL(work).href}//ext`, join(work, 'ext')]) {
      const io = captureIo(t.project);
      assert.is(await main(['install', source, '--json'], io), 3, source);
      const error = JSON.parse(io.stdout.join('\n')).error;
      assert.equal([error.code, error.data.reason], [LocalErrorCode.Registry, 'unsafe-entry'], `${source}: ${error.message}`);
      assert.match(error.message, 'extension.json');
      assert.not.match(io.stdout.join('\n') + io.stderr.join('\n'), 'OPENSSH', 'nothing of the file pointed to is shown');
      assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined));
    }
  }),
);

Stage('should refuse a FIFO as the entry or as SHA256SUMS at install and at pack, without hanging :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.fifo', capabilities: backend('a'), entry: 'bin/ext' });
    await rm(join(pkg, 'bin/ext'));
    makeFifo(join(pkg, 'bin/ext'));
    const paths = registryPaths({ cwd: t.project });
    const outcome = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => 'installed', (e: { code?: unknown; data?: { reason?: unknown } }) => [e.code, e.data?.reason]);
    const installed = await unlessHung(outcome(installExtension({ source: pkg, paths, probe: false })), [join(pkg, 'bin/ext')]);
    assert.is((installed as unknown[])[0], LocalErrorCode.Registry, 'install takes no FIFO for an executable');
    const packed = await unlessHung(outcome(packExtension({ dir: pkg, out: join(t.root, 'x.tgz') })), [join(pkg, 'bin/ext')]);
    assert.is((packed as unknown[])[0], LocalErrorCode.Registry, 'pack takes no FIFO for an executable');
    await rm(join(pkg, 'bin/ext'));
    await writeFile(join(pkg, 'bin/ext'), '#!/bin/sh\n', { mode: 0o755 });
    makeFifo(join(pkg, 'SHA256SUMS'));
    assert.equal(await unlessHung(outcome(installExtension({ source: pkg, paths, probe: false })), [join(pkg, 'SHA256SUMS')]), [LocalErrorCode.Registry, 'not-a-file']);
    assert.equal(await readdir(t.project), [], 'nothing installed');
  }),
);

Stage('should refuse a listed file or an entry that is a hard link, at install and at pack, copying nothing :: hostile', () =>
  withProject(async (t) => {
    await writeFile(join(t.root, 'outside.txt'), 'a key from elsewhere');
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.hard', capabilities: backend('a'), manifest: { files: ['data'] } });
    await mkdir(join(pkg, 'data'));
    await link(join(t.root, 'outside.txt'), join(pkg, 'data/key.txt'));
    const paths = registryPaths({ cwd: t.project });
    const reason = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => 'accepted', (e: { code?: unknown; data?: { reason?: unknown } }) => [e.code, e.data?.reason]);
    assert.equal(await reason(installExtension({ source: pkg, paths, probe: false })), [LocalErrorCode.Registry, 'hard-link']);
    assert.equal(await reason(packExtension({ dir: pkg, out: join(t.root, 'x.tgz') })), [LocalErrorCode.Registry, 'hard-link']);
    assert.equal(await readdir(t.project), []);
  }),
);

Stage('should refuse a SHA256SUMS that lists a path out of the package :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.sums', capabilities: backend('a') });
    const sha = async (path: string): Promise<string> => createHash('sha256').update(await readFile(join(pkg, path))).digest('hex');
    for (const bad of ['../outside.txt', '/etc/passwd', 'a/../../x', 'C:/x', 'a\\b']) {
      await writeFile(join(pkg, 'SHA256SUMS'), `${await sha('extension.json')}  extension.json\n${await sha('bin/ext.mjs')}  bin/ext.mjs\n${'0'.repeat(64)}  ${bad}\n`);
      const error = await installExtension({ source: pkg, paths: registryPaths({ cwd: t.project }), probe: false }).catch((e) => e);
      assert.equal([error?.code, error?.data?.reason, error?.data?.problem], [LocalErrorCode.Registry, 'sums-mismatch', 'unsafe-path'], bad);
    }
  }),
);

Stage('should refuse a SHA256SUMS that lists a file missing from the package, and take one that lists a file it does not install :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.sums', capabilities: backend('a') });
    const sha = async (path: string): Promise<string> => createHash('sha256').update(await readFile(join(pkg, path))).digest('hex');
    const taken = `${await sha('extension.json')}  extension.json\n${await sha('bin/ext.mjs')}  bin/ext.mjs\n`;
    // A file the listing names and the package lacks: the package is not the one packed (a file lost or removed).
    await writeFile(join(pkg, 'SHA256SUMS'), `${taken}${'0'.repeat(64)}  bin/ext-linux-arm64\n`);
    const error = await installExtension({ source: pkg, paths: registryPaths({ cwd: t.project }), probe: false }).catch((e) => e);
    assert.equal([error?.code, error?.data?.reason, error?.data?.problem, error?.data?.file], [LocalErrorCode.Registry, 'sums-mismatch', 'missing', 'bin/ext-linux-arm64'], error?.message);
    assert.match(error.message, /bin\/ext-linux-arm64/);
    assert.not.ok(await stat(join(t.project, '.mep/extensions.lock')).catch(() => undefined), 'nothing locked');
    // Listed and there, not installed (another platform's executable): taken as before.
    await writeFile(join(pkg, 'bin/ext-linux-arm64'), 'other platform\n');
    await writeFile(join(pkg, 'SHA256SUMS'), `${taken}${await sha('bin/ext-linux-arm64')}  bin/ext-linux-arm64\n`);
    await installExtension({ source: pkg, paths: registryPaths({ cwd: t.project }), probe: false });
  }),
);

Stage('should refuse a SHA256SUMS listing more entries than sumsEntries, each a spelling of one file (one lstat each) :: sumsEntries', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.sums', capabilities: backend('a') });
    const sha = async (path: string): Promise<string> => createHash('sha256').update(await readFile(join(pkg, path))).digest('hex');
    const entry = await sha('bin/ext.mjs');
    // bin/ext.mjs spelt 2^14 ways (bin/./ext.mjs, bin//./ext.mjs, …): every line names a file the package has.
    const spellings = Array.from({ length: 2 ** 14 }, (_, n) => `bin${[...n.toString(2).padStart(14, '0')].map((b) => (b === '1' ? '/./' : '/')).join('')}ext.mjs`);
    const lines = spellings.map((s) => `${entry}  ${s}\n`).join('');
    await writeFile(join(pkg, 'SHA256SUMS'), `${await sha('extension.json')}  extension.json\n${entry}  bin/ext.mjs\n${lines}`);
    const error = await installExtension({ source: pkg, paths: registryPaths({ cwd: t.project }), probe: false }).catch((e) => e);
    assert.equal([error?.code, error?.data?.limit], [LocalErrorCode.Limit, 'sumsEntries'], String(error?.message));
    assert.match(String(error.message), /SHA256SUMS[^]*10000 entries/);
    assert.not.ok(await stat(join(t.project, '.mep/extensions.lock')).catch(() => undefined), 'nothing locked');
  }),
);

Stage('should refuse a package installing a .git or .mep folder, a Windows device name or names one file on macOS, from any source, at install and at pack :: names', () =>
  withProject(async (t) => {
    // Installed before: a wasm package's `.git/config` (`core.fsmonitor`, run by a git-aware shell
    // prompt in the installed folder, outside the sandbox) and `con.txt`, which an archive's
    // member may not be: a directory or git package listing it installed it.
    const cases: Array<[string[], string]> = [
      [['.git/config', '.git/HEAD'], '.git/HEAD'],
      [['data/.mep/config.json'], 'data/.mep/config.json'],
      [['con.txt'], 'con.txt'],
      [['lib/A.js', 'lib/a.js'], 'lib/a.js'],
    ];
    for (const [names, refused] of cases) {
      const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.names', capabilities: backend('a'), manifest: { files: [...new Set(names.map((n) => n.split('/')[0] as string))] } });
      for (const name of names) {
        await mkdir(join(pkg, name, '..'), { recursive: true });
        await writeFile(join(pkg, name), '[core]\n\tfsmonitor = touch pwned\n');
      }
      const paths = registryPaths({ cwd: t.project });
      const why = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => 'accepted', (e: { code?: unknown; data?: { reason?: unknown; entry?: unknown } }) => [e.code, e.data?.reason, e.data?.entry]);
      assert.equal(await why(installExtension({ source: pkg, paths, probe: false })), [LocalErrorCode.Registry, 'unsafe-entry', refused], names.join());
      assert.equal(await why(packExtension({ dir: pkg, out: join(t.root, 'x.tgz') })), [LocalErrorCode.Registry, 'unsafe-entry', refused], names.join());
      assert.equal(await readdir(t.project), []);
      await rm(pkg, { recursive: true });
    }
  }),
);

Stage.run();
