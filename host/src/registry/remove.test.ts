import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { readLock } from './lock.ts';
import { registryPaths } from './paths.ts';
import { removeExtension } from './remove.ts';
import { backend, withProject, writePackage } from './test-support.ts';
import type { TempProject } from './test-support.ts';

/** Every file and directory under `dir`, sorted (the evidence that nothing was deleted). */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

/**
 * A project with one installed extension in each scope and a victim directory at every place a
 * climbing id could reach: the project's `src/`, the temp root's `src/` (from `$MEP_HOME`).
 */
async function hostileSetup(t: TempProject): Promise<() => Promise<string[]>> {
  const paths = registryPaths({ cwd: t.project });
  await installExtension({ source: await writePackage(join(t.root, 'pkg-a'), { id: 'acme.a', capabilities: backend('a') }), paths });
  await installExtension({ source: await writePackage(join(t.root, 'pkg-b'), { id: 'acme.b', capabilities: backend('b') }), paths, scope: 'user' });
  for (const victim of [join(t.project, 'src'), join(t.root, 'src')]) {
    await mkdir(join(victim, 'deep'), { recursive: true });
    await writeFile(join(victim, 'deep/keep.txt'), 'precious');
  }
  // A leftover of an interrupted remove: `.removing-*` is the registry's own scratch name.
  await mkdir(join(paths.project.extensions, '.removing-0badc0de'), { recursive: true });
  await writeFile(join(paths.project.extensions, '.removing-0badc0de/keep.txt'), 'x');
  return () => tree(t.root);
}

const HOSTILE_IDS = ['../../src', '../../../src', '..', '.', '', 'a/b', 'acme.a/../../../src', 'a\\b', 'nul\0byte', '.removing-0badc0de', '.incoming-x', 'acme.a/', ' acme.a', 'con', 'x'.repeat(300)];

const Remove = suite('registry :: removeExtension with hostile ids');

Remove('should refuse every id that is not a plain id before touching the disk, in both scopes', () =>
  withProject(async (t) => {
    const snapshot = await hostileSetup(t);
    const before = await snapshot();
    const paths = registryPaths({ cwd: t.project });
    for (const id of [...HOSTILE_IDS, join(t.project, 'src'), join(t.root, 'src')]) {
      for (const scope of [undefined, 'project', 'user'] as const) {
        const error = await removeExtension(paths, id, scope).catch((e) => e);
        assert.is(error?.code, LocalErrorCode.Usage, `${JSON.stringify(id)} (${scope ?? 'any scope'})`);
        assert.is(error.data.reason, 'bad-id');
      }
    }
    assert.equal(await snapshot(), before);
  }),
);

Remove('should make `mep remove` of a non-id delete nothing and exit 2, in human and JSON form', () =>
  withProject(async (t) => {
    const snapshot = await hostileSetup(t);
    const before = await snapshot();
    for (const id of [...HOSTILE_IDS, join(t.project, 'src')]) {
      for (const flags of [[], ['--user'], ['--json'], ['--user', '--json']]) {
        const io = captureIo(t.project);
        assert.is(await main(['remove', id, ...flags], io), 2, `${JSON.stringify(id)} ${flags.join(' ')}`);
        if (flags.includes('--json')) assert.is(JSON.parse(io.stdout.join('\n')).error.data.reason, 'bad-id');
        else assert.ok(io.stderr.join('\n').length > 0);
      }
    }
    assert.equal(await snapshot(), before);
    // The real ones still go.
    assert.is(await main(['remove', 'acme.a'], captureIo(t.project)), 0);
    assert.is(await main(['remove', 'acme.b', '--user'], captureIo(t.project)), 0);
  }),
);

Remove('should not take an inherited object member for a lock entry', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await hostileSetup(t);
    for (const id of ['toString', 'hasOwnProperty', 'valueOf']) {
      const error = await removeExtension(paths, id).catch((e) => e);
      assert.is(error?.data?.reason, 'not-installed', id);
    }
    // Names an object reserves are no ids at all.
    for (const id of ['constructor', 'prototype']) assert.is((await removeExtension(paths, id).catch((e) => e))?.data?.reason, 'bad-id', id);
  }),
);

Remove('should remove a package directory that is a symlink without touching what it points to', () =>
  withProject(async (t) => {
    const snapshot = await hostileSetup(t);
    const paths = registryPaths({ cwd: t.project });
    const lock = JSON.parse(await readFile(paths.project.lock, 'utf8'));
    lock.extensions['acme.link'] = lock.extensions['acme.a'];
    await writeFile(paths.project.lock, JSON.stringify(lock));
    await symlink(join(t.project, 'src'), join(paths.project.extensions, 'acme.link'));
    const before = (await snapshot()).filter((p) => !p.includes('acme.link'));
    await removeExtension(paths, 'acme.link');
    assert.equal(await snapshot(), before);
    assert.is(await readFile(join(t.project, 'src/deep/keep.txt'), 'utf8'), 'precious');
    assert.not.ok('acme.link' in (await readLock(paths.project.lock)).extensions);
  }),
);

Remove('should refuse a lock whose keys are not plain ids, so no command reaches outside the registry', () =>
  withProject(async (t) => {
    await hostileSetup(t);
    const paths = registryPaths({ cwd: t.project });
    const victims = async () => [...(await tree(join(t.project, 'src'))), ...(await tree(join(t.root, 'src')))];
    const before = await victims();
    for (const [lockPath, key] of [
      [paths.project.lock, '../../src'],
      [paths.project.lock, '..'],
      [paths.user.lock, '../../src'],
    ] as const) {
      const lock = JSON.parse(await readFile(lockPath, 'utf8'));
      lock.extensions[key] = Object.values(lock.extensions)[0];
      const hostile = JSON.stringify(lock);
      await writeFile(lockPath, hostile);
      const error = await readLock(lockPath).catch((e) => e);
      assert.is(error?.code, LocalErrorCode.Registry);
      assert.equal([error.data.reason, error.data.extension], ['bad-lock-id', key]);
      for (const argv of [['remove', key], ['remove', key, '--user'], ['list'], ['describe', 'acme.a']]) {
        assert.not.equal(await main(argv, captureIo(t.project)), 0, argv.join(' '));
      }
      for (const argv of [['remove', 'acme.a'], ['remove', 'acme.b', '--user'], ['install', join(t.root, 'pkg-a')], ['install', join(t.root, 'pkg-b'), '--user']]) {
        await main(argv, captureIo(t.project));
      }
      // Nothing outside the registry moved, and the hostile lock was never rewritten.
      assert.equal(await victims(), before, key);
      assert.is(await readFile(lockPath, 'utf8'), hostile);
      delete lock.extensions[key];
      await writeFile(lockPath, JSON.stringify(lock));
    }
  }),
);

Remove.run();
