import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureIo } from '../host/src/cli/io.ts';
import { main } from '../host/src/cli/main.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

const Readme = suite('README :: stays true');

Readme('should show exactly the two commands: setup + main job, and the tests', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const block = /## Two commands[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const commands = block.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
  assert.equal(commands, ['bash scripts/setup.sh', 'npm test']);
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  assert.is(pkg.scripts.test, 'node scripts/test.mjs');
  assert.match(await readFile(join(root, '.ci/run'), 'utf8'), /\nnpm test\n/);
});

Readme('should build its example extension to both runtimes, each passing conformance', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('// my-backend.ts');
  const source = readme.slice(start, readme.indexOf('```', start));
  assert.ok(start > 0 && source.includes('defineExtension'));
  const dir = await mkdtemp(join(tmpdir(), 'mep-readme-'));
  try {
    await writeFile(join(dir, 'my-backend.ts'), source);
    for (const [runtime, out] of [['wasm', 'hello.wasm'], ['process', 'hello.mjs']]) {
      const build = captureIo(dir);
      assert.is(await main(['build', 'my-backend.ts', '--runtime', runtime, '-o', out], build), 0, build.stderr.join('\n'));
      const conformance = captureIo(dir);
      assert.is(await main(['conformance', `./${out}`], conformance), 0, conformance.stdout.join('\n'));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
Readme.run();
