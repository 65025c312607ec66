// The build's caches by content (issue 36): a bundle whose sources are unchanged is not bundled
// again, even when their files were touched; a clean wasm type check stands for the process build
// of the same source; the type check runs beside the pipeline and still decides the output.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { REPO_ROOT } from '../engine/index.ts';
import { join } from 'node:path';
import { isMepError } from '../../host/src/protocol/errors.ts';
import { buildGuest } from './build-guest.ts';
import { checkedClean, typecheckGuest } from './typecheck.ts';

const Cache = suite('build :: caches by content');

const ENTRY = `import { helper } from './helper.ts';\nexport function handle(): number { return helper(2); }\n`;

function project(): { dir: string; entry: string; helper: string; cacheDir: string } {
  // Inside the checkout, so a process check finds Node's types (@types/node) as a project's would.
  mkdirSync(join(REPO_ROOT, '.cache', 'tests'), { recursive: true });
  const dir = mkdtempSync(join(REPO_ROOT, '.cache', 'tests', 'mep-build-cache-'));
  writeFileSync(join(dir, 'package.json'), '{"name":"cached","private":true,"type":"module"}\n');
  writeFileSync(join(dir, 'main.ts'), ENTRY);
  writeFileSync(join(dir, 'helper.ts'), `export function helper(n: number): number { return n * 2; }\n`);
  return { dir, entry: join(dir, 'main.ts'), helper: join(dir, 'helper.ts'), cacheDir: join(dir, 'cache') };
}

Cache('a rebuild of unchanged (even touched) sources takes the bundle from the cache; an edit bundles again', async () => {
  const { dir, entry, helper, cacheDir } = project();
  try {
    const build = () => buildGuest({ entry, outFile: join(dir, 'out.mjs'), runtime: 'process', cacheDir, cwd: dir });
    const first = await build();
    assert.ok('bundle' in first.timings, JSON.stringify(first.timings));
    const later = new Date(Date.now() + 5000);
    utimesSync(helper, later, later);
    const second = await build();
    assert.ok('bundle (cached)' in second.timings && !('bundle' in second.timings), JSON.stringify(second.timings));
    writeFileSync(helper, `export function helper(n: number): number { return n * 3; }\n`);
    const third = await build();
    assert.ok('bundle' in third.timings, JSON.stringify(third.timings));
    const { execFileSync } = await import('node:child_process');
    assert.match(execFileSync('grep', ['-c', 'n \\* 3', join(dir, 'out.mjs')], { encoding: 'utf8' }), /1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Cache('a clean check for the sandbox stands for the process build; a Node-only source is checked for Node', async () => {
  const { dir, entry, cacheDir } = project();
  try {
    const tc = join(cacheDir, 'typecheck');
    assert.is(checkedClean(entry, { runtime: 'process', cacheDir: tc }), false);
    assert.equal(await typecheckGuest(entry, { runtime: 'wasm', cwd: dir, cacheDir: tc }), []);
    assert.is(checkedClean(entry, { runtime: 'process', cacheDir: tc }), true);
    // The other way round it does not hold: the sandbox lacks what Node has.
    const nodeOnly = join(dir, 'node-only.ts');
    writeFileSync(nodeOnly, `export const home: string = String(process.env.HOME);\n`);
    assert.equal(await typecheckGuest(nodeOnly, { runtime: 'process', cwd: dir, cacheDir: tc }), []);
    assert.is(checkedClean(nodeOnly, { runtime: 'wasm', cacheDir: tc }), false);
    assert.ok((await typecheckGuest(nodeOnly, { runtime: 'wasm', cwd: dir, cacheDir: tc })).length > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Cache('a type error found beside the pipeline still fails the build, and nothing is written', async () => {
  const { dir, entry, helper, cacheDir } = project();
  try {
    writeFileSync(helper, `export function helper(n: number): number { return 'no'; }\n`);
    const out = join(dir, 'out.wasm');
    const error = await buildGuest({ entry, outFile: out, cacheDir, cwd: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isMepError(error) && /type check/.test(error.message) && /helper\.ts:1:\d+: TS2322/.test(error.message), String(error));
    assert.not.ok(existsSync(out), 'no module is written for a source with type errors');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Cache.run();
