import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { findInstalled } from './discover.ts';
import { installExtension } from './install.ts';
import { sha256Bytes } from './integrity.ts';
import { readLock } from './lock.ts';
import { updateScopeLock } from './trust-lock.ts';
import { registryPaths } from './paths.ts';
import { checkInstalled, verifyInstalled } from './prepare.ts';
import { backend, withProject, writePackage } from './test-support.ts';
import type { TempProject } from './test-support.ts';

const Pin = suite('registry :: every package file is pinned');

/** A process package with a data file in `files` and a source map beside its entry, installed in the project. */
async function installWithFiles(t: TempProject) {
  const pkg = await writePackage(join(t.root, 'p'), { id: 'acme.files', capabilities: backend('f'), manifest: { files: ['lib'] } });
  await mkdir(join(pkg, 'lib'));
  await writeFile(join(pkg, 'lib/data.txt'), 'read by the extension from its working directory\n');
  await writeFile(join(pkg, 'bin/ext.mjs.map'), '{"version":3,"sources":[],"mappings":""}');
  const paths = registryPaths({ cwd: t.project });
  const result = await installExtension({ source: pkg, paths });
  return { paths, result };
}

const refusal = (paths: ReturnType<typeof registryPaths>) => async () => verifyInstalled((await findInstalled(paths, 'acme.files'))!, { paths }).catch((e) => e);

Pin('should pin every installed file besides the entry and the manifest, with its sha256', () =>
  withProject(async (t) => {
    const { result } = await installWithFiles(t);
    assert.equal(result.entry.files, {
      'bin/ext.mjs.map': sha256Bytes(new Uint8Array(await readFile(join(result.dir, 'bin/ext.mjs.map')))),
      'lib/data.txt': sha256Bytes(new Uint8Array(await readFile(join(result.dir, 'lib/data.txt')))),
    });
  }),
);

Pin('should refuse a run when a file other than the entry changed, naming the file and what to do', () =>
  withProject(async (t) => {
    const { paths, result } = await installWithFiles(t);
    const refused = refusal(paths);
    assert.ok(await verifyInstalled((await findInstalled(paths, 'acme.files'))!, { paths }));
    for (const file of ['lib/data.txt', 'bin/ext.mjs.map']) {
      const path = join(result.dir, file);
      const before = await readFile(path);
      await writeFile(path, 'changed after install\n');
      const error = await refused();
      assert.is(error.code, LocalErrorCode.Registry);
      assert.equal([error.data.reason, error.data.file, error.data.expected], ['hash-mismatch', path, result.entry.files?.[file]]);
      assert.ok(error.message.includes(path) && error.message.includes('mep install') && error.message.includes('mep trust'), error.message);
      // `mep list` checks the same.
      assert.is((await checkInstalled((await findInstalled(paths, 'acme.files'))!).catch((e) => e)).data?.reason, 'hash-mismatch');
      await writeFile(path, before);
    }
    await rm(join(result.dir, 'lib/data.txt'));
    const missing = await refused();
    assert.equal([missing.code, missing.data.reason, missing.data.file], [LocalErrorCode.Registry, 'missing-file', join(result.dir, 'lib/data.txt')]);
  }),
);

Pin('should refuse a run when a file was added to the installed package', () =>
  withProject(async (t) => {
    const { paths, result } = await installWithFiles(t);
    const added = join(result.dir, 'lib/config.json');
    await writeFile(added, '{"evil":true}');
    const error = await refusal(paths)();
    assert.equal([error.code, error.data.reason, error.data.file], [LocalErrorCode.Registry, 'unpinned-file', added]);
    assert.ok(error.message.includes('mep install'), error.message);
  }),
);

Pin('should refuse an old pin without manifestSha256 or files, telling to reinstall; a reinstall upgrades it', () =>
  withProject(async (t) => {
    const { paths } = await installWithFiles(t);
    for (const drop of ['manifestSha256', 'files'] as const) {
      // An older mep's lock, trusted as it is.
      await updateScopeLock(paths, paths.project, (lock) => {
        delete lock.extensions['acme.files']?.[drop];
      });
      const error = await refusal(paths)();
      assert.equal([error.code, error.data.reason, error.data.missing], [LocalErrorCode.Registry, 'old-pin', drop]);
      assert.ok(error.message.includes('mep install'), error.message);
      await installExtension({ source: join(t.root, 'p'), paths });
      const entry = (await readLock(paths.project.lock)).extensions['acme.files'];
      assert.ok(entry?.manifestSha256 && entry.files);
      assert.ok(await verifyInstalled((await findInstalled(paths, 'acme.files'))!, { paths }));
    }
  }),
);

Pin.run();
