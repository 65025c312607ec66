import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { nextSteps } from './commands/init.ts';

const Init = suite('cli :: mep init');

Init('should scaffold an extension that builds to wasm and passes conformance as generated', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mep-init-'));
  const dir = join(parent, 'hello-ext');
  try {
    const init = captureIo(parent);
    assert.is(await main(['init', 'hello-ext'], init), 0);
    assert.is(init.stdout.join('\n').split('\n').at(-1)?.trim(), 'cd hello-ext && npm install && npm run build && npx mep conformance dist/extension.wasm');
    assert.equal((await readdir(dir)).sort(), ['.gitignore', 'README.md', 'package.json', 'src', 'test', 'tsconfig.json']);
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    assert.is(pkg.devDependencies['mep-runtime'], '^0.1.0', 'the published release, never a path on this machine');
    assert.ok(pkg.devDependencies.typescript);
    assert.match(await readFile(join(dir, 'src/extension.ts'), 'utf8'), /from 'mep-runtime\/guest-pdk'/);
    const io = captureIo(dir);
    assert.is(await main(['build', 'src/extension.ts', '-o', 'dist/extension.wasm'], io), 0, io.stderr.join('\n'));
    const conf = captureIo(dir);
    assert.is(await main(['conformance', 'dist/extension.wasm'], conf), 0, conf.stdout.join('\n'));
    assert.match(conf.stdout.at(-1) as string, / 0 failed/);
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
  assert.is(nextSteps("my ext's"), `cd 'my ext'\\''s' && npm install && npm run build && npx mep conformance dist/extension.wasm`);
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

Init('should report a type error in the entry with file and line, before any wasm work', async () => {
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
Init.run();
