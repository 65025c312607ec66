import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownInstall, ownPackageRoot } from './own-install.ts';

const Own = suite('cli :: where mep-runtime was installed from');
const dir = mkdtempSync(join(tmpdir(), 'mep-own-'));
Own.after(() => rmSync(dir, { recursive: true, force: true }));

/** A project at `name` with mep-runtime in its node_modules, as npm leaves it. */
function project(name: string, files: { lock?: unknown; hiddenLock?: unknown; pkg?: unknown }): string {
  const root = join(dir, name);
  const copy = join(root, 'node_modules', 'mep-runtime');
  mkdirSync(join(copy, 'dist'), { recursive: true });
  writeFileSync(join(copy, 'package.json'), JSON.stringify({ name: 'mep-runtime', version: '0.1.0' }));
  if (files.pkg) writeFileSync(join(root, 'package.json'), JSON.stringify(files.pkg));
  if (files.lock) writeFileSync(join(root, 'package-lock.json'), JSON.stringify(files.lock));
  if (files.hiddenLock) writeFileSync(join(root, 'node_modules', '.package-lock.json'), JSON.stringify(files.hiddenLock));
  return copy;
}
const lockOf = (entry: unknown) => ({ lockfileVersion: 3, packages: { '': {}, 'node_modules/mep-runtime': entry } });

Own('should give the registry range for a copy npm fetched from a registry', () => {
  const copy = project('registry', { hiddenLock: lockOf({ version: '0.1.0', resolved: 'https://registry.npmjs.org/mep-runtime/-/mep-runtime-0.1.0.tgz' }), pkg: { devDependencies: { 'mep-runtime': '^0.1.0' } } });
  assert.equal(ownInstall('0.1.0', copy), { spec: '^0.1.0', source: 'registry' });
});

Own('should give the tarball, as an absolute file: spec, for a copy installed from one', () => {
  const copy = project('tarball/app', { lock: lockOf({ version: '0.1.0', resolved: 'file:../mep-runtime-0.1.0.tgz' }) });
  assert.equal(ownInstall('0.1.0', copy), { spec: `file:${join(dir, 'tarball', 'mep-runtime-0.1.0.tgz')}`, source: 'tarball' });
  // Without a lock, the spec the project asked for.
  const asked = project('asked', { pkg: { devDependencies: { 'mep-runtime': 'file:vendor/mep-runtime-0.1.0.tgz' } } });
  assert.equal(ownInstall('0.1.0', asked), { spec: `file:${join(dir, 'asked', 'vendor', 'mep-runtime-0.1.0.tgz')}`, source: 'tarball' });
});

Own('should give the folder of a linked or checked-out copy once it is built, and the default with a reason otherwise', () => {
  const folder = join(dir, 'checkout');
  mkdirSync(join(folder, 'dist', 'host', 'src'), { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'mep-runtime' }));
  const linked = join(dir, 'linked', 'node_modules', 'mep-runtime');
  mkdirSync(join(dir, 'linked', 'node_modules'), { recursive: true });
  symlinkSync(folder, linked);
  const unbuilt = ownInstall('0.1.0', linked);
  assert.is(unbuilt.spec, '^0.1.0');
  assert.is(unbuilt.source, 'default');
  assert.match(unbuilt.note ?? '', /no dist\/ to install.*npm pack/);
  writeFileSync(join(folder, 'dist', 'host', 'src', 'index.js'), '');
  assert.equal(ownInstall('0.1.0', linked), { spec: `file:${folder}`, source: 'folder' });
  assert.equal(ownInstall('0.1.0', folder), { spec: `file:${folder}`, source: 'folder' });
});

Own('should fall back to the registry range, saying why, when npm recorded nothing', () => {
  const copy = project('unrecorded', {});
  const own = ownInstall('0.1.0', copy);
  assert.equal([own.spec, own.source], ['^0.1.0', 'default']);
  assert.match(own.note ?? '', /recorded no source/);
  assert.is(ownPackageRoot(join(dir, 'no-package', 'x.js')), undefined, 'no mep-runtime package.json above');
});

Own('should find its own package root', () => {
  const root = ownPackageRoot();
  assert.ok(root !== undefined && !root.includes('node_modules'), root);
});

Own.run();
