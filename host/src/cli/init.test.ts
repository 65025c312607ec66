import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const Init = suite('cli :: mep init');

Init('should scaffold an extension that builds to wasm and passes conformance as generated', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mep-init-'));
  const dir = join(parent, 'hello-ext');
  try {
    assert.is(await main(['init', dir], captureIo(parent)), 0);
    assert.equal((await readdir(dir)).sort(), ['.gitignore', 'README.md', 'package.json', 'src', 'test', 'tsconfig.json']);
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
