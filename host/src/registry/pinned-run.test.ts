import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWatFixture } from '../../../fixtures/wasm/compile.ts';
import { rejectionCode } from '../../../fixtures/testing/error-codes.ts';
import { LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { pinnedCopy } from './pinned-copy.ts';
import { readClaimSet } from '../session/read-claims.ts';
import { createSession } from '../session/session.ts';
import { findInstalled } from './discover.ts';
import { installExtension } from './install.ts';
import { openTransport } from './launch.ts';
import type { LaunchSpec } from './launch.ts';
import { registryPaths } from './paths.ts';
import { verifyInstalled } from './prepare.ts';
import { backend, configurableFixture, withProject, writePackage } from './test-support.ts';
import type { TempProject } from './test-support.ts';

const Pinned = suite('registry :: the bytes that run are the bytes that were hashed');

/** The id the extension behind `spec` reports (it is started for that). */
async function reportedId(spec: LaunchSpec): Promise<string> {
  const transport = await openTransport(spec);
  const { claims } = await readClaimSet({ transport, requestTimeoutMs: 10_000, shutdownTimeoutMs: 10_000 });
  return claims.extension.id;
}

/** Installs the configurable fixture as `acme.pin` and returns its verified spec and package directory. */
async function installed(t: TempProject, entry = 'bin/ext.mjs'): Promise<{ spec: LaunchSpec; dir: string; entryPath: string }> {
  const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.pin', capabilities: backend('x'), entry });
  const paths = registryPaths({ cwd: t.project });
  await installExtension({ source: pkg, paths, probe: false });
  const found = await findInstalled(paths, 'acme.pin');
  assert.ok(found);
  return { spec: await verifyInstalled(found, { paths }), dir: found.dir, entryPath: found.artifact };
}

/** A script that reports the id `evil` and leaves a mark beside itself. */
async function evilScript(path: string): Promise<void> {
  const text = (await readFile(configurableFixture, 'utf8')).replace("const config = JSON.parse(process.argv[2] ?? '{}');", "const config = { ...JSON.parse(process.argv[2] ?? '{}'), id: 'evil' };\nimport('node:fs').then((fs) => fs.writeFileSync(process.argv[1] + '.ran', ''));");
  await writeFile(path, text);
  await chmod(path, 0o755);
}

Pinned('should run the verified script when the entry is renamed over after its hash was checked :: hostile', () =>
  withProject(async (t) => {
    const { spec, entryPath } = await installed(t);
    await evilScript(`${entryPath}.new`);
    await rename(`${entryPath}.new`, entryPath);
    assert.is(await reportedId(spec), 'acme.pin');
    assert.not.ok(existsSync(`${entryPath}.ran`));
  }),
);

Pinned('should run the verified script when the entry is rewritten in place after its hash was checked :: hostile', () =>
  withProject(async (t) => {
    const { spec, entryPath } = await installed(t);
    await evilScript(entryPath);
    assert.is(await reportedId(spec), 'acme.pin');
  }),
);

Pinned('should run the verified executable (no .js) when it is swapped after its hash was checked :: hostile', () =>
  withProject(async (t) => {
    const { spec, entryPath } = await installed(t, 'bin/ext');
    await evilScript(`${entryPath}.new`);
    await rename(`${entryPath}.new`, entryPath);
    assert.is(await reportedId(spec), 'acme.pin');
  }),
);

Pinned('should load a .js entry from its copy as Node.js would where it is installed (the nearest package.json type)', () =>
  withProject(async (t) => {
    await writeFile(join(t.project, 'package.json'), '{"type": "module"}');
    const { spec, entryPath } = await installed(t, 'bin/ext.js');
    assert.ok(spec.path !== entryPath, 'runs from the copy');
    assert.is(await reportedId(spec), 'acme.pin', 'an ES module, as the project says');
  }),
);

Pinned('should refuse the manifest that was read when the file is restored before the check :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.pin', capabilities: backend('x') });
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: pkg, paths, probe: false });
    const manifestPath = join(t.project, '.mep/extensions/acme.pin/extension.json');
    const good = await readFile(manifestPath, 'utf8');
    await writeFile(manifestPath, good.replace('"args": [', '"args": ["--evil", '));
    const found = await findInstalled(paths, 'acme.pin');
    await writeFile(manifestPath, good);
    assert.ok(found);
    assert.is(await rejectionCode(verifyInstalled(found, { paths })), LocalErrorCode.Registry);
  }),
);

Pinned('should compile only the verified bytes of a wasm module swapped after its check', () =>
  withProject(async (t) => {
    const pkg = join(t.root, 'wasm-pkg');
    await writePackage(pkg, { id: 'acme.w', capabilities: backend('x') });
    await writeFile(join(pkg, 'echo.wasm'), loadWatFixture('echo'));
    await writeFile(join(pkg, 'extension.json'), JSON.stringify({ id: 'acme.w', name: 'W', version: '1.0.0', runtime: 'wasm', entry: 'echo.wasm' }));
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: pkg, paths, probe: false });
    const found = await findInstalled(paths, 'acme.w');
    assert.ok(found);
    const spec = await verifyInstalled(found, { paths });
    await writeFile(`${found.artifact}.new`, loadWatFixture('trap'));
    await rename(`${found.artifact}.new`, found.artifact);
    assert.is(await rejectionCode(openTransport(spec)), LocalErrorCode.Registry);
  }),
);

/** Installs `acme.lazy`, whose ping imports `lib/late.mjs` and reads `data/note.txt` only when called. */
async function installLazy(t: TempProject): Promise<{ spec: LaunchSpec; dir: string }> {
  const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.lazy', capabilities: backend('x'), fixture: { lazy: '../lib/late.mjs', read: 'data/note.txt' }, manifest: { files: ['lib', 'data'] } });
  await mkdir(join(pkg, 'lib'));
  await mkdir(join(pkg, 'data'));
  await writeFile(join(pkg, 'lib/late.mjs'), "export default 'installed';\n");
  await writeFile(join(pkg, 'data/note.txt'), 'installed note');
  const paths = registryPaths({ cwd: t.project });
  await installExtension({ source: pkg, paths, probe: false });
  const found = await findInstalled(paths, 'acme.lazy');
  assert.ok(found);
  return { spec: await verifyInstalled(found, { paths }), dir: found.dir };
}

Pinned('should import and read the pinned bytes of package files swapped after the session opened, never the swapped ones :: hostile', () =>
  withProject(async (t) => {
    const { spec, dir } = await installLazy(t);
    const session = createSession({ transport: await openTransport(spec), requestTimeoutMs: 10_000, shutdownTimeoutMs: 10_000 });
    try {
      await session.start();
      const late = join(dir, 'lib/late.mjs');
      await writeFile(`${late}.new`, "import('node:fs').then((fs) => fs.writeFileSync(new URL(import.meta.url).pathname + '.ran', ''));\nexport default 'swapped';\n");
      await rename(`${late}.new`, late);
      await writeFile(join(dir, 'data/note.txt'), 'swapped note');
      assert.equal(await session.ping(), { lazy: 'installed', read: 'installed note' });
      assert.not.ok(existsSync(`${late}.ran`), 'the swapped module never ran');
    } finally {
      await session.close();
    }
  }),
);

Pinned('should refuse to copy a package file that no longer hashes to its pin, naming it', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.lazy', capabilities: backend('x'), manifest: { files: ['late.mjs'] } });
    await writeFile(join(pkg, 'late.mjs'), "export default 'installed';\n");
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: pkg, paths, probe: false });
    const found = await findInstalled(paths, 'acme.lazy');
    assert.ok(found?.lockEntry?.files);
    const late = join(found.dir, 'late.mjs');
    await writeFile(late, "export default 'swapped';\n");
    const error = await pinnedCopy({ extension: 'acme.lazy', dir: found.dir, lock: found.lock, entry: 'bin/ext.mjs', files: { ...found.lockEntry.files, 'bin/ext.mjs': found.lockEntry.sha256 } }).then(
      () => { throw new Error("copied a changed file"); },
      (e: unknown) => e as MepError,
    );
    assert.equal([error.code, error.data], [LocalErrorCode.Registry, { extension: 'acme.lazy', file: late, expected: found.lockEntry.files['late.mjs'], actual: (error.data as { actual: string }).actual, lock: found.lock, reason: 'hash-mismatch' }]);
  }),
);

Pinned.run();
