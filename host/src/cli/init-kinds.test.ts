import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { ExtensionManifest } from '../registry/manifest.ts';
import { seededRotation } from '../../../fixtures/testing/tier.ts';

const Kinds = suite('cli :: mep init --kind');
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const TSX = join(ROOT, 'node_modules/tsx/dist/loader.mjs');

/**
 * Makes `mep-runtime/testing` and `mep-runtime/guest-pdk` resolve in the project to this
 * checkout's sources (what `npm install` of the packed tarball gives it), so `node --test` runs
 * the generated tests as they are.
 */
async function linkRuntime(dir: string): Promise<void> {
  const pkg = join(dir, 'node_modules/mep-runtime');
  await mkdir(pkg, { recursive: true });
  await symlink(ROOT, join(pkg, 'src'));
  const exports = { './testing': './src/host/src/testing/index.ts', './guest-pdk': './src/guest-pdk/src/index.ts' };
  await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'mep-runtime', type: 'module', exports }));
}

/** Runs the project's generated tests (`npm test`'s `node --test test/`), returning TAP. */
async function generatedTests(dir: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, '--test', 'test/'], { cwd: dir, timeout: 240_000 });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, out: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

const cases = [
  { kind: 'frontend', call: ['compile', 'sample', '--extension', 'dist/extension.wasm'], shows: /Compiled .* 1 module/ },
  { kind: 'validator', call: ['call', 'dist/extension.wasm', 'validate', '--ir', 'sample/morphir-ir.json'], shows: /"code": "EXT002"/ },
  { kind: 'transform', call: ['call', 'dist/extension.wasm', 'transform', '--ir', 'sample/morphir-ir.json'], shows: /"irVersion": "3"/ },
] as const;

// Each kind is a whole pipeline (scaffold, type-checked build, generated tests in two runtimes):
// `npm test` runs one, chosen by MEP_TEST_SEED (default 0); `npm run test:long` runs them all.
const chosen = seededRotation(cases);

for (const { kind, call, shows } of chosen) {
  Kinds(`should scaffold a ${kind} that type-checks, answers its next step and passes its generated tests in wasm and process`, async () => {
    const parent = await mkdtemp(join(tmpdir(), 'mep-init-kind-'));
    const dir = join(parent, `my-${kind}`);
    try {
      const init = captureIo(parent);
      assert.is(await main(['init', `my-${kind}`, '--kind', kind], init), 0, init.stderr.join('\n'));
      const next = init.stdout.join('\n');
      assert.ok(next.includes(`npx mep ${call.join(' ')}`), next);
      const manifest = ExtensionManifest.parse(JSON.parse(await readFile(join(dir, 'extension.json'), 'utf8')));
      assert.is(manifest.entry, 'dist/extension.wasm');
      assert.match(await readFile(join(dir, 'README.md'), 'utf8'), new RegExp(`An MEP 0.1 ${kind}`));
      const build = captureIo(dir);
      assert.is(await main(['build', 'src/extension.ts', '-o', 'dist/extension.wasm'], build), 0, build.stderr.join('\n'));
      const answer = captureIo(dir);
      assert.is(await main([...call], answer), 0, answer.stderr.join('\n'));
      assert.match(`${answer.stdout.join('\n')}\n${answer.stderr.join('\n')}`, shows);
      await linkRuntime(dir);
      const tests = await generatedTests(dir);
      assert.is(tests.code, 0, tests.out);
      assert.match(tests.out, /# pass 2/);
      assert.match(tests.out, /# fail 0/);
      // The tests can fail: a source that answers wrongly is caught in both runtimes.
      const src = join(dir, 'src/extension.ts');
      await writeFile(src, (await readFile(src, 'utf8')).replace(/'EXT001'|'TINY001'/, "'WRONG'"));
      const broken = await generatedTests(dir);
      assert.is.not(broken.code, 0);
      assert.match(broken.out, /# fail 2/);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
}

Kinds('should refuse an unknown kind and write nothing', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mep-init-kind-'));
  try {
    const io = captureIo(parent);
    assert.is(await main(['init', 'x', '--kind', 'compiler'], io), 2);
    assert.match(io.stderr.join('\n'), /--kind expects one of backend, frontend, validator, transform, got 'compiler'/);
    assert.is(await readFile(join(parent, 'x/package.json'), 'utf8').catch(() => undefined), undefined);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

Kinds.run();
