import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { watToWasm } from '../../../../../fixtures/wasm/compile.ts';
import { MAX_EAGER_TRIES } from './compiled-code-cache.ts';

const repo = fileURLToPath(new URL('../../../../../', import.meta.url));
const cacheModule = new URL('./compiled-code-cache.ts', import.meta.url).href;
const tierModule = new URL('./wasm-tier.ts', import.meta.url).href;

/** A module whose one function sums 1..n, with `salt` in a custom section (other bytes, same code). */
const moduleOf = (salt: string): Uint8Array => {
  const wasm = watToWasm(`(module (func (export "f") (param $n i32) (result i32) (local $acc i32)
    (loop $l (local.set $acc (i32.add (local.get $acc) (local.get $n)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))) (local.get $acc)))`);
  const payload = Buffer.concat([Buffer.from([4]), Buffer.from('salt'), Buffer.from(salt)]);
  return Buffer.concat([wasm, Buffer.from([0, payload.length]), payload]);
};

interface Run {
  notes: string[];
  result: number;
  /** Whether V8 still takes a JS code cache made before (its flag hash is back where it was). */
  flagsBack: boolean;
}

/**
 * Compiles the module at `wasm` through the cache in `dir` in a fresh node (V8 flags are per
 * process), with the baseline tier chosen first when `baseline`, and calls it.
 */
async function run(dir: string, wasm: string, baseline = false, eager = false, crash = false): Promise<Run> {
  const script = `
    import { readFileSync } from 'node:fs';
    import { Script } from 'node:vm';
    import { compileWithCodeCache } from ${JSON.stringify(cacheModule)};
    import { useBaselineWasmTier, wasmTierChoice } from ${JSON.stringify(tierModule)};
    if (process.argv[2] === 'baseline') useBaselineWasmTier();
    // A process that dies in the eager compile (V8 aborting, a Ctrl+C): only that compile uses the constructor.
    if (process.argv[4] === 'crash') WebAssembly.Module = function () { process.kill(process.pid, 'SIGKILL'); };
    const probe = new Script('0', { filename: 'probe' }).createCachedData();
    const notes = [];
    const tier = wasmTierChoice();
    const eager = process.argv[3] === 'eager';
    const module = await compileWithCodeCache(readFileSync(${JSON.stringify(wasm)}), { dir: ${JSON.stringify(dir)}, ...(tier ? { tier } : {}), ...(eager ? { eager } : {}), note: (n) => notes.push(n) });
    const result = new WebAssembly.Instance(module).exports.f(1000);
    const flagsBack = !new Script('0', { filename: 'probe-check', cachedData: probe }).cachedDataRejected;
    console.log(JSON.stringify({ notes, result, flagsBack }));`;
  // A file, not \`-e\`: the code would be in node's options, which the cache's name is keyed by.
  const file = join(root, 'run.mjs');
  writeFileSync(file, script);
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file, baseline ? 'baseline' : 'default', eager ? 'eager' : 'marked', crash ? 'crash' : 'live'], { cwd: repo, timeout: 60_000 });
  return JSON.parse(stdout) as Run;
}

const test = suite('compiled code of a guest kept between processes (issue 32)');
let root = '';
let dir = '';
let wasm = '';
test.before.each(() => {
  root = mkdtempSync(join(tmpdir(), 'mep-wasm-code-'));
  dir = join(root, 'cache');
  wasm = join(root, 'a.wasm');
  writeFileSync(wasm, moduleOf(root));
});
test.after.each(() => {
  chmodSync(root, 0o700);
  rmSync(root, { recursive: true, force: true });
});

/** The one file of `extension` in the cache's folder. */
const onlyFile = (extension: string): string => {
  const names = readdirSync(dir).filter((name) => name.endsWith(extension));
  assert.is(names.length, 1, names.join(', '));
  return join(dir, names[0] as string);
};
const cacheFile = (): string => onlyFile('.wcode');
const codeFiles = (): string[] => readdirSync(dir).filter((name) => name.endsWith('.wcode'));
const MARKED = 'miss, marked (compiled lazily; the next miss compiles and writes the code)';
/** Two runs: the first marks, the second writes the code. */
const warm = async (module = wasm): Promise<void> => {
  await run(dir, module);
  await run(dir, module);
};

test('should compile lazily and only mark on a first miss, write the code on the second, and hit on the third, computing the same', async () => {
  const first = await run(dir, wasm);
  assert.equal(first, { notes: [MARKED], result: 500500, flagsBack: true });
  assert.equal(codeFiles(), [], 'no eager compile, no code written on a first miss');
  onlyFile('.wseen');
  const second = await run(dir, wasm);
  assert.match(second.notes.join(), /^miss \(marked before\), compiled and written \(\d+ bytes\)$/);
  assert.is(second.result, 500500);
  assert.ok(second.flagsBack);
  cacheFile();
  assert.equal(readdirSync(dir).filter((name) => name.endsWith('.wseen')), [], 'the marker removed once the code is written');
  assert.equal(await run(dir, wasm), { notes: ['hit'], result: 500500, flagsBack: true });
});

test('should stop compiling eagerly for a module after MAX_EAGER_TRIES processes died in that compile, and compile it lazily', async () => {
  await run(dir, wasm);
  for (let n = 0; n < MAX_EAGER_TRIES; n++) {
    const died = await run(dir, wasm, false, false, true).then(() => false, (error: { signal?: string }) => error.signal === 'SIGKILL');
    assert.ok(died, 'the process died in the eager compile');
  }
  const after = await run(dir, wasm, false, false, true);
  assert.is(after.result, 500500);
  assert.match(after.notes.join(), new RegExp(`^miss; ${MAX_EAGER_TRIES} eager compiles of these bytes started before and did not finish`));
  assert.equal(codeFiles(), []);
  // Asked to be eager, too.
  assert.match((await run(dir, wasm, false, true, true)).notes.join(), /did not finish/);
});

test('should write the code on the first miss when asked to be eager (MEP_WASM_CODE_CACHE=eager)', async () => {
  const eager = await run(dir, wasm, false, true);
  assert.match(eager.notes.join(), /^miss \(eager\), compiled and written/);
  assert.is(eager.result, 500500);
  assert.equal((await run(dir, wasm)).notes, ['hit']);
});

test('should not trust a marker that is a FIFO, a link, or a file others can write: a lazy compile, marked again', async () => {
  await run(dir, wasm);
  const marker = onlyFile('.wseen');
  const genuine = join(root, 'genuine.wseen');
  copyFileSync(marker, genuine);
  const swaps: Record<string, () => void> = {
    fifo: () => execFileSync('mkfifo', ['-m', '600', marker]),
    link: () => symlinkSync(genuine, marker),
    'open file': () => (copyFileSync(genuine, marker), chmodSync(marker, 0o666)),
  };
  for (const [what, swap] of Object.entries(swaps)) {
    rmSync(marker);
    swap();
    assert.equal(await run(dir, wasm), { notes: [MARKED], result: 500500, flagsBack: true }, what);
    assert.equal(codeFiles(), [], what);
  }
});

test('should not trust a marker in a folder others can write: no eager compile, nothing written', async () => {
  await run(dir, wasm);
  chmodSync(dir, 0o777);
  const open = await run(dir, wasm);
  assert.match(open.notes.join(), /^refused .*, not written$/);
  assert.is(open.result, 500500);
  assert.equal(codeFiles(), []);
  chmodSync(dir, 0o700);
});

test('should keep at most MAX_MARKERS markers', async () => {
  const script = `
    import { compileWithCodeCache, MAX_MARKERS } from ${JSON.stringify(cacheModule)};
    import { readdirSync } from 'node:fs';
    const base = Buffer.from(${JSON.stringify(Buffer.from(moduleOf('')).toString('base64'))}, 'base64');
    for (let i = 0; i < MAX_MARKERS + 4; i++) await compileWithCodeCache(Buffer.concat([base, Buffer.from([0, 2, 1, 65 + i])]), { dir: ${JSON.stringify(dir)} });
    console.log(JSON.stringify([MAX_MARKERS, readdirSync(${JSON.stringify(dir)}).filter((n) => n.endsWith('.wseen')).length]));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo });
  const [max, kept] = JSON.parse(stdout) as [number, number];
  assert.ok(max > 0);
  assert.is(kept, max);
});

test('should read the code under the baseline tier mep compile chooses, and put that tier back after', async () => {
  await warm();
  assert.equal(await run(dir, wasm, true), { notes: ['hit'], result: 500500, flagsBack: true });
  rmSync(dir, { recursive: true });
  assert.equal((await run(dir, wasm, true)).notes, [MARKED]);
  const written = await run(dir, wasm, true);
  assert.match(written.notes.join(), /^miss \(marked before\), compiled and written/);
  assert.ok(written.flagsBack);
  assert.equal(await run(dir, wasm), { notes: ['hit'], result: 500500, flagsBack: true });
});

test('should not use a cache with a byte flipped (V8 would run it), compile as today, and write it again', async () => {
  await warm();
  const file = cacheFile();
  const bytes = readFileSync(file);
  bytes[bytes.length - 20] ^= 0x01;
  writeFileSync(file, bytes, { mode: 0o600 });
  const flipped = await run(dir, wasm);
  assert.match(flipped.notes.join(), /^refused .*, compiled and written/);
  assert.is(flipped.result, 500500);
  assert.equal((await run(dir, wasm)).notes, ['hit']);
});

test('should not use a cache made for other bytes, even renamed to these bytes\' name', async () => {
  await warm();
  const mine = cacheFile();
  const other = join(root, 'b.wasm');
  writeFileSync(other, moduleOf(`${root}-other`));
  rmSync(dir, { recursive: true });
  await warm(other);
  const theirs = cacheFile();
  copyFileSync(theirs, mine);
  rmSync(theirs);
  const renamed = await run(dir, wasm);
  assert.match(renamed.notes.join(), /^refused/);
  assert.is(renamed.result, 500500);
});

test('should neither use nor write a cache in a folder others can write', async () => {
  await warm();
  chmodSync(dir, 0o777);
  const open = await run(dir, wasm);
  assert.equal(open, { notes: ['refused (not a file of this user\'s closed to others in such a folder, too large, or its checksum differs), not written'], result: 500500, flagsBack: true });
  chmodSync(dir, 0o700);
});

test('should not block on a FIFO at the cache\'s name', async () => {
  await warm();
  const file = cacheFile();
  rmSync(file);
  execFileSync('mkfifo', ['-m', '600', file]);
  const fifo = await run(dir, wasm);
  assert.match(fifo.notes.join(), /^refused/);
  assert.is(fifo.result, 500500);
});

test('should leave a valid cache when two processes write it at once', async () => {
  await run(dir, wasm);
  const both = await Promise.all([run(dir, wasm), run(dir, wasm)]);
  for (const one of both) assert.is(one.result, 500500);
  assert.equal(readdirSync(dir).filter((name) => name.endsWith('.tmp')), []);
  assert.equal((await run(dir, wasm)).notes, ['hit']);
});

test('should leave a module without functions (nothing to serialize: V8 would abort) to the usual compile', async () => {
  const empty = join(root, 'empty.wasm');
  writeFileSync(empty, watToWasm('(module (memory 1))'));
  const script = `
    import { readFileSync } from 'node:fs';
    import { compileWithCodeCache } from ${JSON.stringify(cacheModule)};
    const notes = [];
    const module = await compileWithCodeCache(readFileSync(${JSON.stringify(empty)}), { dir: ${JSON.stringify(dir)}, note: (n) => notes.push(n) });
    console.log(JSON.stringify([module instanceof WebAssembly.Module, notes]));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo });
  assert.equal(JSON.parse(stdout), [true, ['miss, not written']]);
  mkdirSync(dir, { recursive: true });
});

test.run();
