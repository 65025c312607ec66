import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { ExitCode } from './exit-codes.ts';
import { nextSteps, SAMPLE_CATALOG } from './commands/init.ts';
import { ownInstall } from './commands/own-install.ts';
import { ExtensionManifest } from '../registry/manifest.ts';
import { HOST_VERSION } from '../session/host-info.ts';
import { artifactText, openExtension, readIr, sampleIr } from '../testing/index.ts';

const Init = suite('cli :: mep init');

Init('should scaffold an extension that builds, answers mep call on its sample and gives the catalog its test expects', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mep-init-'));
  const dir = join(parent, 'hello-ext');
  try {
    const init = captureIo(parent);
    assert.is(await main(['init', 'hello-ext'], init), 0);
    assert.is(init.stdout.join('\n').split('\n').at(-1)?.trim(), 'cd hello-ext && npm install && npm run build && npx mep call dist/extension.wasm generate --ir sample/morphir-ir.json && npm test');
    assert.equal((await readdir(dir)).sort(), ['.gitignore', 'README.md', 'extension.json', 'package.json', 'sample', 'src', 'test', 'tsconfig.json']);
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    assert.is(pkg.devDependencies['mep-runtime'], ownInstall(HOST_VERSION).spec, 'where this mep came from');
    assert.ok(pkg.devDependencies.typescript);
    assert.ok(pkg.scripts.watch.includes('--watch'));
    const manifest = ExtensionManifest.parse(JSON.parse(await readFile(join(dir, 'extension.json'), 'utf8')));
    assert.equal([manifest.id, manifest.runtime, manifest.entry], ['hello-ext', 'wasm', 'dist/extension.wasm']);
    assert.equal(await readIr('sample/morphir-ir.json', dir), sampleIr());
    assert.match(await readFile(join(dir, 'test/extension.test.mjs'), 'utf8'), /from 'mep-runtime\/testing'/);
    assert.match(await readFile(join(dir, 'src/extension.ts'), 'utf8'), /from 'mep-runtime\/guest-pdk'/);
    const io = captureIo(dir);
    assert.is(await main(['build', 'src/extension.ts', '-o', 'dist/extension.wasm'], io), 0, io.stderr.join('\n'));
    const call = captureIo(dir);
    assert.is(await main(['call', 'dist/extension.wasm', 'generate', '--ir', 'sample/morphir-ir.json'], call), 0, call.stderr.join('\n'));
    assert.is(JSON.parse(call.stdout.join('\n')).artifacts[0].content, SAMPLE_CATALOG);
    // What the scaffolded test checks, in both runtimes, through the same test kit.
    for (const runtime of ['wasm', 'process'] as const) {
      const extension = await openExtension(join(dir, 'src/extension.ts'), { runtime });
      try {
        assert.is(artifactText(await extension.generate({ ir: sampleIr() }), 'catalog.txt'), SAMPLE_CATALOG);
      } finally {
        await extension.close();
      }
    }
    // The package installs as scaffolded.
    const install = captureIo(dir);
    assert.is(await main(['install', '.'], install), 0, install.stderr.join('\n'));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

Init('should depend on a packed tarball given relative to the current directory', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mep-init-'));
  try {
    assert.is(await main(['init', 'a/b', '--mep-runtime', 'file:mep-runtime-0.1.0.tgz'], captureIo(parent)), 0);
    const pkg = JSON.parse(await readFile(join(parent, 'a/b/package.json'), 'utf8'));
    assert.is(pkg.devDependencies['mep-runtime'], 'file:../../mep-runtime-0.1.0.tgz');
    assert.is(await main(['init', 'c', '--mep-runtime', 'file:/abs/x.tgz'], captureIo(parent)), 0);
    assert.is(JSON.parse(await readFile(join(parent, 'c/package.json'), 'utf8')).devDependencies['mep-runtime'], 'file:/abs/x.tgz');
    assert.is(await main(['init', 'd', '--mep-runtime', ' '], captureIo(parent)), 2);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

Init('should quote a directory the shell would split in the next steps', () => {
  assert.is(nextSteps("my ext's").split(' && ')[0], `cd 'my ext'\\''s'`);
  assert.is(nextSteps('$(rm -rf ~)').startsWith("cd '$(rm -rf ~)' && "), true);
});

Init('should refuse a non-empty directory and write nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-init-'));
  try {
    await writeFile(join(dir, 'keep.txt'), 'mine');
    const io = captureIo(dir);
    assert.is(await main(['init', dir], io), 2);
    assert.equal(await readdir(dir), ['keep.txt']);
    assert.is(await main(['init', join(dir, 'x'), '--id', 'Bad Id!'], captureIo(dir)), 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Init('should report a type error in the entry with file and line, and write no output', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mep-init-'));
  const dir = join(parent, 'broken');
  try {
    assert.is(await main(['init', dir], captureIo(parent)), 0);
    const src = join(dir, 'src/extension.ts');
    await writeFile(src, (await readFile(src, 'utf8')).replace("irVersions: ['3'],", "irVersions: [3],"));
    const io = captureIo(dir);
    assert.is(await main(['build', 'src/extension.ts', '-o', 'dist/x.wasm'], io), 1);
    assert.match(io.stderr.join('\n'), /src\/extension\.ts:\d+:\d+/);
    assert.not.ok((await readdir(dir)).includes('dist'));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
Init('should refuse a link (to an empty folder, dangling), a file, a FIFO and a non-empty folder, writing nothing anywhere, and fill an empty working directory whole :: hostile', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mep-init-hostile-'));
  try {
    await mkdir(join(parent, 'target'));
    await symlink('target', join(parent, 'linked'));
    await symlink('target/new', join(parent, 'dangling'));
    await writeFile(join(parent, 'file'), 'x');
    execFileSync('mkfifo', [join(parent, 'fifo')]);
    await mkdir(join(parent, 'full'));
    await writeFile(join(parent, 'full', 'keep.txt'), 'mine');
    const before = (await readdir(parent)).sort();
    for (const [name, why] of [['linked', /is a symbolic link/], ['dangling', /is a symbolic link/], ['file', /is not a folder/], ['fifo', /is not a folder/], ['full', /is not empty/], ['file/inside', /cannot be looked at \(ENOTDIR\)/]] as const) {
      const io = captureIo(parent);
      assert.is(await main(['init', name, '--mep-runtime', 'mep-runtime@0.1.0'], io), ExitCode.Usage, `${name}: ${io.stderr.join('\n')}`);
      assert.match(io.stderr.join('\n'), why, name);
      assert.match(io.stderr.join('\n'), /nothing was written/, name);
      assert.not.match(io.stderr.join('\n'), /unexpected|\n\s+at /, `${name}: a typed error, no stack`);
      assert.equal((await readdir(parent)).sort(), before, `${name}: nothing beside it`);
      assert.equal(await readdir(join(parent, 'target')), [], `${name}: nothing through a link`);
      assert.equal(await readdir(join(parent, 'full')), ['keep.txt']);
    }
    // An empty folder that is the working directory: filled in place, no staging folder left.
    const io = captureIo(join(parent, 'target'));
    assert.is(await main(['init', '.', '--id', 'here', '--mep-runtime', 'mep-runtime@0.1.0'], io), 0, io.stderr.join('\n'));
    assert.equal((await readdir(join(parent, 'target'))).sort(), ['.gitignore', 'README.md', 'extension.json', 'package.json', 'sample', 'src', 'test', 'tsconfig.json']);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

Init.run();
