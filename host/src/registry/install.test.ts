import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { LocalErrorCode } from '../protocol/errors.ts';
import { findInstalled } from './discover.ts';
import { installExtension } from './install.ts';
import { sha256Bytes } from './integrity.ts';
import { readLock } from './lock.ts';
import { registryPaths } from './paths.ts';
import { claimsOf, verifyInstalled } from './prepare.ts';
import { removeExtension } from './remove.ts';
import { backend, makeTarGz, makeZip, packageEntries, writeMultiPlatformPackage, writePackage, withProject } from './test-support.ts';

const git = promisify(execFile);



const Install = suite('registry :: installExtension');

Install('should install a local directory, pin version/runtime/sha256 without source, and not run a process', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.echo', capabilities: backend('echo') });
    const paths = registryPaths({ cwd: t.project });
    const result = await installExtension({ source: pkg, paths });
    assert.is(result.dir, join(t.project, '.mep/extensions/acme.echo'));
    const entry = (await readLock(paths.project.lock)).extensions['acme.echo'];
    assert.equal(Object.keys(entry ?? {}).sort(), ['files', 'manifestSha256', 'runtime', 'sha256', 'version']);
    assert.equal(entry?.files, {});
    assert.is(entry?.sha256, sha256Bytes(new Uint8Array(await readFile(join(pkg, 'bin/ext.mjs')))));
  }),
);

Install('should pin claims at the first session of a process installed without a probe, and with --probe at install', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: await writePackage(join(t.root, 'a'), { id: 'acme.a', capabilities: backend('echo') }), paths });
    const installed = await findInstalled(paths, 'acme.a');
    const { claims, source } = await claimsOf(installed!, { paths });
    assert.is(source, 'describe');
    assert.equal(claims.capabilities.backend?.targets, ['echo']);
    assert.is(((await readLock(paths.project.lock)).extensions['acme.a']?.claims as { extension: { id: string } }).extension.id, 'acme.a');
    assert.is((await claimsOf((await findInstalled(paths, 'acme.a'))!, { paths })).source, 'lock');

    const probed = await installExtension({ source: await writePackage(join(t.root, 'b'), { id: 'acme.b', capabilities: backend('x'), fixture: { describe: false } }), paths, probe: true, scope: 'user' });
    assert.is(probed.lock, join(t.home, 'extensions.lock'));
    assert.equal((probed.entry.claims as { capabilities: { backend: { targets: string[] } } }).capabilities.backend.targets, ['x']);
  }),
);

Install('should refuse a probed artifact that reports another id than its manifest', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'p'), { id: 'acme.right', capabilities: backend('echo'), fixture: { id: 'acme.wrong' } });
    const error = await installExtension({ source: pkg, paths: registryPaths({ cwd: t.project }), probe: true }).catch((e) => e);
    assert.is(error.data?.reason, 'identity');
    assert.not.ok(await stat(join(t.project, '.mep/extensions/acme.right')).catch(() => undefined));
  }),
);

/** A bare repository of acme.crm under ext/crm: v1.0.0 tagged, 2.0.0 on `next`; with the work tree it was made in. */
async function crmRepo(root: string): Promise<{ work: string; bare: string; v1: string; g: (...args: string[]) => Promise<{ stdout: string }> }> {
  const work = join(root, 'work');
  await writePackage(join(work, 'ext/crm'), { id: 'acme.crm', capabilities: backend('crm') });
  const g = (...args: string[]) => git('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
  await g('init', '--quiet', '-b', 'main');
  await g('add', '.');
  await g('commit', '--quiet', '-m', 'v1');
  await g('tag', 'v1.0.0');
  const v1 = (await g('rev-parse', 'HEAD')).stdout.trim();
  await writeFile(join(work, 'ext/crm/extension.json'), (await readFile(join(work, 'ext/crm/extension.json'), 'utf8')).replace('"1.0.0"', '"2.0.0"'));
  await g('commit', '--quiet', '-am', 'v2');
  await g('checkout', '--quiet', '-b', 'next');
  const bare = join(root, 'repo.git');
  await git('git', ['clone', '--quiet', '--bare', work, bare]);
  return { work, bare, v1, g };
}

Install('should install from git with //subdir and #ref, recording source and commit', () =>
  withProject(async (t) => {
    const { bare, v1 } = await crmRepo(t.root);
    const spec = `${pathToFileURL(bare).href}//ext/crm#v1.0.0`;
    const paths = registryPaths({ cwd: t.project });
    const result = await installExtension({ source: spec, paths });
    assert.equal([result.version, result.entry.source, result.entry.commit], ['1.0.0', spec, v1]);
    const branch = await installExtension({ source: `${pathToFileURL(bare).href}//ext/crm#next`, paths });
    assert.is(branch.version, '2.0.0');
    assert.ok(branch.replaced);
    const missing = await installExtension({ source: `${pathToFileURL(bare).href}//nope#main`, paths }).catch((e) => e);
    assert.is(missing.data?.reason, 'no-subdir');
    assert.is((await findInstalled(paths, 'acme.crm'))?.manifest.version, '2.0.0');
  }),
);

Install('should install from git the same inside a git hook: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE of the user\'s repository are not git\'s for the clone :: hostile', () =>
  withProject(async (t) => {
    // A hook (pre-commit, post-checkout) runs with these set: the clone's checkout used the user's
    // repository, index and work tree instead of its own.
    const { work, bare, v1, g } = await crmRepo(t.root);
    const head = (await g('rev-parse', 'HEAD')).stdout.trim();
    const index = join(t.root, 'hook-index');
    const saved = { GIT_DIR: process.env.GIT_DIR, GIT_WORK_TREE: process.env.GIT_WORK_TREE, GIT_INDEX_FILE: process.env.GIT_INDEX_FILE };
    Object.assign(process.env, { GIT_DIR: join(work, '.git'), GIT_WORK_TREE: work, GIT_INDEX_FILE: index });
    try {
      const result = await installExtension({ source: `${pathToFileURL(bare).href}//ext/crm#v1.0.0`, paths: registryPaths({ cwd: t.project }) }).catch((e: Error) => e);
      assert.equal(result instanceof Error ? result.message : [result.version, result.entry.commit], ['1.0.0', v1]);
    } finally {
      for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
    }
    assert.is((await g('rev-parse', 'HEAD')).stdout.trim(), head, "the user's repository is where it was");
    assert.is((await g('status', '--porcelain')).stdout, '', "the user's work tree and index are untouched");
    assert.not.ok(await readFile(index).then(() => true, () => false), 'no index written at GIT_INDEX_FILE');
  }),
);

Install('should install tar.gz (top-level dir) and zip (root) archives and check #sha256 first', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.arc', capabilities: backend('arc') });
    const tgz = makeTarGz(await packageEntries(pkg, 'acme-arc-1.0.0/'));
    const zip = makeZip(await packageEntries(pkg, ''));
    await writeFile(join(t.root, 'a.tgz'), tgz);
    await writeFile(join(t.root, 'a.zip'), zip);
    const paths = registryPaths({ cwd: t.project });
    const spec = `${pathToFileURL(join(t.root, 'a.tgz')).href}#sha256=${sha256Bytes(tgz)}`;
    const fromTar = await installExtension({ source: spec, paths });
    assert.equal([fromTar.id, fromTar.entry.source, fromTar.entry.commit], ['acme.arc', spec, undefined]);
    const fromZip = await installExtension({ source: join(t.root, 'a.zip'), paths, scope: 'user' });
    assert.is(fromZip.entry.sha256, fromTar.entry.sha256);

    const bad = await installExtension({ source: `${join(t.root, 'a.zip')}#sha256=${'0'.repeat(64)}`, paths }).catch((e) => e);
    assert.is(bad.code, LocalErrorCode.Registry);
    assert.equal([bad.data.reason, bad.data.actual], ['hash-mismatch', sha256Bytes(zip)]);
  }),
);

Install('should refuse an archive with an escaping entry and leave the previous install untouched', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.safe', capabilities: backend('s') });
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: pkg, paths });
    const lockBefore = await readFile(paths.project.lock, 'utf8');
    const listing = async () => (await readdir(join(t.project, '.mep'), { recursive: true })).sort();
    const before = await listing();
    for (const evil of [{ path: '../escape.txt', data: 'x' }, { path: 'bin/link', link: '../../../outside' }]) {
      const bytes = makeTarGz([...(await packageEntries(pkg, '')).map((e) => (e.path === 'extension.json' ? { ...e, data: new TextEncoder().encode(new TextDecoder().decode(e.data).replace('1.0.0', '9.9.9')) } : e)), evil]);
      await writeFile(join(t.root, 'evil.tgz'), bytes);
      const error = await installExtension({ source: join(t.root, 'evil.tgz'), paths }).catch((e) => e);
      assert.is(error.data?.reason, 'unsafe-entry');
    }
    assert.is(await readFile(paths.project.lock, 'utf8'), lockBefore);
    assert.equal(await listing(), before);
    assert.not.ok(await stat(join(t.root, 'escape.txt')).catch(() => undefined));
  }),
);

Install('should vendor only this platform\'s executable and list the provided platforms otherwise', () =>
  withProject(async (t) => {
    const pkg = await writeMultiPlatformPackage(join(t.root, 'multi'));
    const paths = registryPaths({ cwd: t.project });
    const result = await installExtension({ source: pkg, paths, platform: { os: 'linux', arch: 'amd64' } });
    assert.is(result.entry.platform, 'linux-amd64');
    assert.equal(await readdir(join(result.dir, 'bin')), ['crm']);
    assert.is(await readFile(join(result.dir, 'bin/crm'), 'utf8'), 'binary for linux-amd64');
    assert.is(result.entry.sha256, sha256Bytes(new TextEncoder().encode('binary for linux-amd64')));

    const error = await installExtension({ source: pkg, paths, platform: { os: 'linux', arch: 'arm64' }, scope: 'user' }).catch((e) => e);
    assert.is(error.data?.reason, 'platform');
    assert.equal(error.data.provided, ['darwin-arm64', 'linux-amd64', 'windows-amd64']);
    assert.not.ok(await stat(join(t.home, 'extensions')).catch(() => undefined));
  }),
);

Install('should refuse to run an artifact tampered with after install, naming the file and both hashes', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    const result = await installExtension({ source: await writePackage(join(t.root, 'p'), { id: 'acme.t', capabilities: backend('t') }), paths });
    const artifact = join(result.dir, 'bin/ext.mjs');
    await writeFile(artifact, `${await readFile(artifact, 'utf8')}\n// tampered\n`);
    const error = await verifyInstalled((await findInstalled(paths, 'acme.t'))!, { paths }).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry);
    assert.equal([error.data.reason, error.data.file, error.data.expected], ['hash-mismatch', artifact, result.entry.sha256]);
    assert.is(error.data.actual, sha256Bytes(new Uint8Array(await readFile(artifact))));
    assert.ok(error.message.includes(artifact) && error.message.includes(result.entry.sha256));
  }),
);

Install('should refuse to run a package whose extension.json was edited after install', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    const result = await installExtension({ source: await writePackage(join(t.root, 'p'), { id: 'acme.m', capabilities: backend('m') }), paths });
    assert.match(result.entry.manifestSha256 ?? '', /^[0-9a-f]{64}$/);
    assert.ok(await verifyInstalled((await findInstalled(paths, 'acme.m'))!, { paths }));
    const manifest = join(result.dir, 'extension.json');
    const edited = { ...JSON.parse(await readFile(manifest, 'utf8')), env: { LEAK: 'yes' } };
    await writeFile(manifest, JSON.stringify(edited));
    const error = await verifyInstalled((await findInstalled(paths, 'acme.m'))!, { paths }).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry);
    assert.equal([error.data.reason, error.data.file, error.data.expected], ['hash-mismatch', manifest, result.entry.manifestSha256]);
  }),
);

Install('should remove an extension and its lock entry, and refuse an unknown id', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: await writePackage(join(t.root, 'p'), { id: 'acme.r', capabilities: backend('r') }), paths });
    const removed = await removeExtension(paths, 'acme.r');
    assert.is(removed.scope, 'project');
    assert.equal((await readLock(paths.project.lock)).extensions, {});
    assert.equal(await readdir(paths.project.extensions), []);
    assert.is((await removeExtension(paths, 'acme.r').catch((e) => e)).data?.reason, 'not-installed');
  }),
);

Install('should refuse an id that differs only in case from an installed one', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: await writePackage(join(t.root, 'lower'), { id: 'acme.case', capabilities: backend('c') }), paths });
    const error = await installExtension({ source: await writePackage(join(t.root, 'upper'), { id: 'Acme.Case', capabilities: backend('c') }), paths }).catch((e) => e);
    assert.equal([error.code, error.data?.reason, error.data?.other], [LocalErrorCode.Registry, 'id-case-collision', 'acme.case']);
    assert.equal(Object.keys((await readLock(paths.project.lock)).extensions), ['acme.case']);
    // The user scope is another directory: the same id in another case is fine there.
    assert.ok(await installExtension({ source: join(t.root, 'upper'), paths, scope: 'user' }));
  }),
);

Install.run();
