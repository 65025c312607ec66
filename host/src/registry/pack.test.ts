import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { chmod, copyFile, cp, mkdir, readFile, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { builtAvro } from '../../../examples/testing/built.ts';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { sha256Bytes } from './integrity.ts';
import { packExtension } from './pack.ts';
import { registryPaths } from './paths.ts';
import { backend, makeTarGz, withProject, writeMultiPlatformPackage, writePackage } from './test-support.ts';
import type { TempProject } from './test-support.ts';

const run = promisify(execFile);

/** A process package with the clutter an author's directory has. */
async function authorPackage(t: TempProject, name = 'author'): Promise<string> {
  const dir = await writePackage(join(t.root, name), { id: 'acme.packed', capabilities: backend('packed'), manifest: { files: ['data'] } });
  await mkdir(join(dir, 'data/deep'), { recursive: true });
  await writeFile(join(dir, 'data/deep/table.json'), '{"a":1}');
  await mkdir(join(dir, 'node_modules/dep'), { recursive: true });
  await writeFile(join(dir, 'node_modules/dep/index.js'), 'module.exports = 1;');
  await writeFile(join(dir, 'notes.txt'), 'not shipped');
  return dir;
}

/** Unpacks `archive` with the system tar into `dir`, returning the top directory. */
async function untar(archive: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await run('tar', ['-xzf', archive, '-C', dir]);
  const [top] = await readdir(dir);
  return join(dir, top as string);
}

const Pack = suite('registry :: packExtension and installing what it packed');

Pack('should pack only what install takes, with SHA256SUMS that sha256sum accepts, and install it by its sha256', () =>
  withProject(async (t) => {
    const dir = await authorPackage(t);
    const io = captureIo(t.root);
    assert.is(await main(['pack', dir, '--json'], io), 0, io.stderr.join('\n'));
    const packed = JSON.parse(io.stdout.join('\n'));
    assert.equal(packed.file, join(t.root, 'acme.packed-1.0.0.tgz'));
    assert.is(packed.sha256, sha256Bytes(new Uint8Array(await readFile(packed.file))));
    assert.equal(packed.files, ['SHA256SUMS', 'bin/ext.mjs', 'data/deep/table.json', 'extension.json']);

    const { stdout } = await run('tar', ['-tzf', packed.file]);
    assert.equal(stdout.trim().split('\n'), ['acme.packed-1.0.0/', 'acme.packed-1.0.0/SHA256SUMS', 'acme.packed-1.0.0/bin/', 'acme.packed-1.0.0/bin/ext.mjs', 'acme.packed-1.0.0/data/', 'acme.packed-1.0.0/data/deep/', 'acme.packed-1.0.0/data/deep/table.json', 'acme.packed-1.0.0/extension.json']);
    const top = await untar(packed.file, join(t.root, 'unpacked'));
    await run('sha256sum', ['--check', '--quiet', 'SHA256SUMS'], { cwd: top });

    const installed = captureIo(t.project);
    assert.is(await main(['install', `${packed.file}#sha256=${packed.sha256}`, '--json'], installed), 0, installed.stderr.join('\n'));
    assert.is(JSON.parse(installed.stdout.join('\n')).entry.source, `${packed.file}#sha256=${packed.sha256}`);
    const described = captureIo(t.project);
    assert.is(await main(['describe', 'acme.packed'], described), 0, described.stderr.join('\n'));
    assert.equal(JSON.parse(described.stdout.join('\n')).capabilities.backend.targets, ['packed']);
    assert.equal((await readdir(join(t.project, '.mep/extensions/acme.packed'), { recursive: true })).sort(), ['bin', 'bin/ext.mjs', 'data', 'data/deep', 'data/deep/table.json', 'extension.json']);

    const human = captureIo(t.root);
    assert.is(await main(['pack', dir, '-o', 'again.tgz'], human), 0);
    assert.ok(human.stdout.includes(`  install with: mep install ./again.tgz#sha256=${packed.sha256}`), human.stdout.join('\n'));
  }),
);

Pack('should round-trip a wasm package: pack, install by sha256, describe', () =>
  withProject(async (t) => {
    const dir = join(t.root, 'wasm-pkg');
    await mkdir(dir);
    await copyFile(await builtAvro('wasm'), join(dir, 'avro.wasm'));
    await writeFile(join(dir, 'extension.json'), JSON.stringify({ id: 'morphir-avro-ts', name: 'Avro', version: '0.1.0', runtime: 'wasm', entry: 'avro.wasm' }));
    const packed = await packExtension({ dir, cwd: t.root });
    await installExtension({ source: `${packed.file}#sha256=${packed.sha256}`, paths: registryPaths({ cwd: t.project }) });
    const described = captureIo(t.project);
    assert.is(await main(['describe', 'morphir-avro-ts'], described), 0, described.stderr.join('\n'));
    assert.equal(JSON.parse(described.stdout.join('\n')).capabilities.backend.targets, ['avro']);
  }),
);

Pack('should give the same bytes for the same package, whatever its times, place or order on disk', () =>
  withProject(async (t) => {
    const dir = await authorPackage(t);
    const first = await packExtension({ dir, out: join(t.root, 'a.tgz') });
    await utimes(join(dir, 'bin/ext.mjs'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    await chmod(join(dir, 'data/deep/table.json'), 0o600);
    const copy = join(t.root, 'elsewhere/deeper/author');
    await cp(dir, copy, { recursive: true });
    const second = await packExtension({ dir: copy, out: join(t.root, 'b.tgz') });
    assert.is(second.sha256, first.sha256);
    const bytes = await readFile(second.file);
    assert.equal(bytes, await readFile(first.file));
    assert.equal([bytes[0], bytes[1], bytes[9]], [0x1f, 0x8b, 255], 'gzip with OS "unknown", not the build platform');
  }),
);

Pack('should refuse a tampered file and an unlisted one against SHA256SUMS, nothing installed', () =>
  withProject(async (t) => {
    const packed = await packExtension({ dir: await authorPackage(t), cwd: t.root });
    const paths = registryPaths({ cwd: t.project });
    const cases: [string, (top: string) => Promise<void>, string, string][] = [
      ['a changed entry', async (top) => writeFile(join(top, 'bin/ext.mjs'), `${await readFile(join(top, 'bin/ext.mjs'), 'utf8')}\n// changed`), 'bin/ext.mjs', 'hash'],
      ['a changed listed file', (top) => writeFile(join(top, 'data/deep/table.json'), '{"a":2}'), 'data/deep/table.json', 'hash'],
      ['a line removed', async (top) => writeFile(join(top, 'SHA256SUMS'), (await readFile(join(top, 'SHA256SUMS'), 'utf8')).split('\n').filter((l) => !l.endsWith('table.json')).join('\n')), 'data/deep/table.json', 'unlisted'],
    ];
    for (const [index, [name, tamper, file, problem]] of cases.entries()) {
      const top = await untar(packed.file, join(t.root, `tamper-${index}`));
      await tamper(top);
      const archive = join(t.root, `tampered-${index}.tgz`);
      await run('tar', ['-czf', archive, '-C', join(top, '..'), 'acme.packed-1.0.0']);
      const hash = sha256Bytes(new Uint8Array(await readFile(archive)));
      const error = await installExtension({ source: `${archive}#sha256=${hash}`, paths }).catch((e) => e);
      assert.equal([error.code, error.data?.reason, error.data?.file, error.data?.problem], [LocalErrorCode.Registry, 'sums-mismatch', file, problem], name);
    }
    await rm(join(t.project, '.mep'), { recursive: true, force: true }).then(() => undefined);
    assert.equal(await readdir(t.project), []);
  }),
);

Pack('should refuse a wrong #sha256 before extracting anything', () =>
  withProject(async (t) => {
    // A hostile archive: extraction would refuse it for its member, but the hash comes first.
    const hostile = join(t.root, 'hostile.tgz');
    await writeFile(hostile, makeTarGz([{ path: '../escape.txt', data: 'x' }]));
    const error = await installExtension({ source: `${hostile}#sha256=${'0'.repeat(64)}`, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
    assert.equal([error.code, error.data?.reason, error.data?.expected], [LocalErrorCode.Registry, 'hash-mismatch', '0'.repeat(64)]);
    assert.is(error.data.actual, sha256Bytes(new Uint8Array(await readFile(hostile))));
  }),
);

Pack('should pack every platform executable and install only this host\'s, checked against SHA256SUMS', () =>
  withProject(async (t) => {
    const dir = await writeMultiPlatformPackage(join(t.root, 'multi'));
    const packed = await packExtension({ dir, cwd: t.root });
    assert.equal(packed.files, ['SHA256SUMS', 'bin/crm-darwin-arm64', 'bin/crm-linux-amd64', 'bin/crm-windows-amd64.exe', 'extension.json']);
    const result = await installExtension({ source: packed.file, paths: registryPaths({ cwd: t.project }), platform: { os: 'linux', arch: 'amd64' } });
    assert.equal([result.entry.platform, await readFile(join(result.dir, 'bin/crm'), 'utf8')], ['linux-amd64', 'binary for linux-amd64']);
  }),
);

Pack('should refuse to pack what install would refuse', () =>
  withProject(async (t) => {
    const linked = await writePackage(join(t.root, 'linked'), { id: 'acme.l', capabilities: backend('l') });
    await writeFile(join(t.root, 'outside.mjs'), '// outside');
    await rm(join(linked, 'bin/ext.mjs'));
    await symlink(join(t.root, 'outside.mjs'), join(linked, 'bin/ext.mjs'));
    const cases: [string, string][] = [
      [linked, 'unsafe-entry'],
      [await writePackage(join(t.root, 'v'), { id: 'acme.v', capabilities: backend('v'), version: '../../1.0' }), 'bad-version'],
      [await writePackage(join(t.root, 'm'), { id: 'acme.m', capabilities: backend('m'), manifest: { entry: 'bin/missing' } }), 'missing-artifact'],
    ];
    for (const [dir, reason] of cases) {
      const io = captureIo(t.root);
      assert.is(await main(['pack', dir, '--json'], io), 3, reason);
      assert.is(JSON.parse(io.stdout.join('\n')).error.data.reason, reason);
    }
    assert.equal((await readdir(t.root)).filter((n) => n.endsWith('.tgz') || n.endsWith('.tmp')), []);
  }),
);

Pack.run();
