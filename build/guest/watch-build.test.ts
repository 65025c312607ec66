// What `mep build --watch` asks of buildGuest (issue 36): the module is written before wasm-opt's
// dead-code pass and replaced by the optimized one when the pass ends — never over a newer build —
// with the build record following it, and stopped when a newer build of the same output starts;
// esbuild's kept contexts see every edit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readBuildRecord } from '../../host/src/registry/build-record.ts';
import { REPO_ROOT } from '../engine/index.ts';
import { ensureEngine } from '../engine/index.ts';
import { buildGuest } from './build-guest.ts';
import { bundleGuest, disposeBundleContexts } from './bundle.ts';
import { compileBundle } from './bytecode.ts';
import { engineLayout } from './link.ts';

const Watch = suite('build :: a watch build (deferred dead-code pass, kept esbuild contexts)');

const source = (n: number): string => `export function handle(): number { return ${n}; }\n`;

/** `fn` in a fresh project folder (a package.json named `name`); esbuild's kept contexts end and the folder goes after. */
async function inProject(name: string, fn: (dir: string) => Promise<void>): Promise<void> {
  mkdirSync(join(REPO_ROOT, '.cache', 'tests'), { recursive: true });
  const dir = mkdtempSync(join(REPO_ROOT, '.cache', 'tests', `mep-${name}-`));
  try {
    writeFileSync(join(dir, 'package.json'), `{"name":"${name}","private":true,"type":"module"}\n`);
    await fn(dir);
  } finally {
    await disposeBundleContexts();
    rmSync(dir, { recursive: true, force: true });
  }
}

Watch('should write the module at once, then the optimized one; an older pass never replaces a newer build', () =>
  inProject('watched', async (dir) => {
    const entry = join(dir, 'main.ts');
    const outFile = join(dir, 'out.wasm');
    const cacheDir = join(dir, 'cache');
    const watchBuild = () => buildGuest({ entry, outFile, cacheDir, cwd: dir, typecheck: false, deferOptimize: true, incremental: true });
    writeFileSync(entry, source(1));
    const first = await watchBuild();
    assert.ok(first.optimized, 'a deferred pass');
    assert.is(readFileSync(outFile).length, first.size, 'the linked module is in place first');
    assert.is(await first.optimized, 'optimized');
    const optimized = readFileSync(outFile);
    assert.ok(optimized.length < first.size, `${optimized.length} < ${first.size}`);
    assert.ok(readBuildRecord(outFile), 'the record describes the optimized module');
    // The same bytes as a build that ran the pass in line (it is the cache entry the pass stored).
    const inline = await buildGuest({ entry, outFile: join(dir, 'inline.wasm'), cacheDir, cwd: dir, typecheck: false });
    assert.ok(inline.cached);
    assert.equal(readFileSync(join(dir, 'inline.wasm')), optimized);

    // An edit, seen by the kept esbuild context; its build starts before the older pass ends.
    writeFileSync(entry, source(2));
    const older = await watchBuild();
    writeFileSync(entry, source(3));
    const newer = await watchBuild();
    // The newer build stopped the older pass: wasm-opt did not go on working on a module no one will use.
    assert.equal(await Promise.all([older.optimized, newer.optimized]), ['superseded', 'optimized']);
    assert.is(readdirSync(cacheDir).filter((f) => f.endsWith('.wasm')).length, 2, 'the modules of the first and the newest source are cached, not the one whose pass stopped');
    await buildGuest({ entry, outFile: join(dir, 'expected.wasm'), cacheDir: join(dir, 'fresh-cache'), cwd: dir, typecheck: false });
    assert.equal(readFileSync(outFile), readFileSync(join(dir, 'expected.wasm')), 'the newest source, optimized');
    assert.ok(readBuildRecord(outFile));
    // A kept rebuild neither reads nor writes the bundle cache (esbuild's context is the cache
    // there); the first build of the process did.
    const bundles = (): string[] => readdirSync(join(cacheDir, 'bundle')).map((f) => readFileSync(join(cacheDir, 'bundle', f), 'utf8'));
    const cachedBundles = bundles();
    writeFileSync(entry, source(5));
    await (await watchBuild()).optimized;
    assert.equal(bundles(), cachedBundles, 'no bundle cached by a kept rebuild');
  }),
);

Watch('should write nothing for a build whose publication is refused, and rejects with the refusal', () =>
  inProject('gated', async (dir) => {
    const entry = join(dir, 'main.ts');
    writeFileSync(entry, source(4));
    const refusal = new Error('superseded by a newer change');
    for (const runtime of ['process', 'wasm'] as const) {
      const outFile = join(dir, `out-${runtime}`);
      let refuse!: (e: Error) => void;
      const publish = new Promise<void>((_, reject) => (refuse = reject));
      const built = buildGuest({ entry, outFile, runtime, cacheDir: join(dir, 'cache'), cwd: dir, typecheck: false, incremental: true, publish });
      setTimeout(() => refuse(refusal), 50);
      assert.is(await built.then(() => 'written', (e: unknown) => e), refusal, runtime);
      assert.equal(readdirSync(dir).filter((f) => f.startsWith('out-')), [], `${runtime}: no output, map or record`);
    }
    // Refused while the type check would fail: the refusal, not the check's errors (nor a wait for them).
    writeFileSync(entry, `export function handle(): number { return 'not a number'; }\n`);
    let refuse!: (e: Error) => void;
    const refused = buildGuest({ entry, outFile: join(dir, 'out-typed'), runtime: 'process', cacheDir: join(dir, 'cache'), cwd: dir, publish: new Promise<void>((_, reject) => (refuse = reject)) });
    refuse(refusal);
    assert.is(await refused.then(() => 'written', (e: unknown) => e), refusal);
    writeFileSync(entry, source(4));
    const published = await buildGuest({ entry, outFile: join(dir, 'out.wasm'), cacheDir: join(dir, 'cache'), cwd: dir, typecheck: false, incremental: true, publish: Promise.resolve() });
    assert.is(readFileSync(join(dir, 'out.wasm')).length, published.size);
  }),
);

Watch('the engine that compiles bundles is kept between builds, and a bundle it cannot compile leaves it as it was', async () => {
  mkdirSync(join(REPO_ROOT, '.cache', 'tests'), { recursive: true });
  const dir = mkdtempSync(join(REPO_ROOT, '.cache', 'tests', 'mep-kept-compiler-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"name":"kept","private":true,"type":"module"}\n');
    writeFileSync(join(dir, 'main.ts'), `const table = new Map([['a', 1]]);\n${source(7)}export function size(): number { return table.size; }\n`);
    const bundle = await bundleGuest({ entry: join(dir, 'main.ts'), runtime: 'wasm', cwd: dir });
    const { wasmPath } = await ensureEngine();
    const layout = engineLayout(readFileSync(wasmPath));
    const image = async (code: string) => (await compileBundle(wasmPath, layout, { ...bundle, code }, 'main.ts', { cwd: dir })).memory;
    const before = await image(bundle.code);
    // esbuild lets this through (it is not esbuild's syntax error): QuickJS's own compiler refuses it.
    const refused = await image(`${bundle.code}\nlet once; let once;\n`).then(() => undefined, (e: unknown) => e);
    assert.is((refused as { code?: string } | undefined)?.code, 'ERR_BUILD', 'the engine refused the bundle');
    assert.equal(await image(bundle.code), before, 'the same snapshot after the refusal');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Watch.run();
