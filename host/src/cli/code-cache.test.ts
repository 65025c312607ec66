import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { codeCachePath, loadWithCodeCache } from './code-cache.ts';

interface Probe {
  answer(): string;
  seen: unknown;
}

const CodeCache = suite('code cache: the command\'s bundle through V8\'s code cache');
const dir = mkdtempSync(join(tmpdir(), 'mep-code-cache-'));
const cacheDir = join(dir, 'cache');
/** A bundle whose function compiles lazily (at its first call): the cache written after the run holds it. */
const SOURCE = `exports.answer = function answer() { return ['forty', 'two'].join('-'); };\nexports.seen = typeof __mepValue === 'undefined' ? undefined : __mepValue;\n`;
let copies = 0;
/**
 * `source` as a bundle under a new name: V8 keeps the scripts a process compiled by source and
 * name, and would hand back the one it holds instead of reading the cache.
 */
function bundleOf(source = SOURCE): string {
  const path = join(dir, `bundle-${copies++}.cjs`);
  writeFileSync(path, source);
  return path;
}
const load = (bundle: string) => loadWithCodeCache<Probe>({ bundle, cacheDir, globals: { __mepValue: 7 } });
const cacheOf = (bundle: string): string => codeCachePath(cacheDir, (execFileSync('sha256sum', [bundle], { encoding: 'utf8' }).split(' ')[0] as string));
/** A fresh cache directory holding the cache of SOURCE, made by a first run. */
function primed(): string {
  rmSync(cacheDir, { recursive: true, force: true });
  const first = load(bundleOf());
  first.exports.answer();
  assert.ok(first.keep(), 'a first run writes its cache');
  return cacheOf(bundleOf());
}

CodeCache.after(() => rmSync(dir, { recursive: true, force: true }));

CodeCache('should run the bundle from source the first time, write its cache after the run, and have V8 take it the next time', () => {
  rmSync(cacheDir, { recursive: true, force: true });
  const first = load(bundleOf());
  assert.is(first.cache, 'miss');
  assert.is(first.exports.answer(), 'forty-two');
  assert.is(first.exports.seen, 7, 'the globals reach the bundle');
  assert.ok(first.keep());
  assert.not.ok(first.keep(), 'once');
  const files = readdirSync(cacheDir);
  assert.equal(files.length, 1, files.join());
  const second = load(bundleOf());
  assert.is(second.cache, 'hit');
  assert.is(second.exports.answer(), 'forty-two');
  assert.not.ok(second.keep(), 'a cache V8 took is not written again');
});

CodeCache('should refuse a cache whose bytes changed (V8 checks its header, not its body), run from source and write a good one', () => {
  const path = primed();
  const bytes = readFileSync(path);
  // V8 itself would take this one: the byte is in the body.
  bytes[bytes.length - 100] ^= 0xff;
  writeFileSync(path, bytes, { mode: 0o600 });
  const loaded = load(bundleOf());
  assert.is(loaded.cache, 'refused');
  assert.is(loaded.exports.answer(), 'forty-two');
  assert.ok(loaded.keep(), 'rewritten');
  assert.is(load(bundleOf()).cache, 'hit');
  for (const cut of [0, 10, 40, 41]) {
    writeFileSync(path, readFileSync(path).subarray(0, cut), { mode: 0o600 });
    const truncated = load(bundleOf());
    assert.ok(truncated.cache === 'refused', `${cut} bytes: ${truncated.cache}`);
    assert.is(truncated.exports.answer(), 'forty-two');
  }
});

CodeCache('should leave a cache of another script to V8, which rejects it, and run from source', () => {
  const path = primed();
  // A well-formed file (our header and checksum right) holding V8's cache of other code.
  const foreign = new Script('exports.answer = () => "hijacked";', { filename: 'other.cjs' }).createCachedData();
  const header = readFileSync(path).subarray(0, 8);
  const { createHash } = process.getBuiltinModule('node:crypto');
  writeFileSync(path, Buffer.concat([header, createHash('sha256').update(foreign).digest(), foreign]), { mode: 0o600 });
  const loaded = load(bundleOf());
  assert.is(loaded.cache, 'rejected');
  assert.is(loaded.exports.answer(), 'forty-two');
});

CodeCache('should not take the cache of a bundle that changed since, even with the same length (V8 compares lengths only)', () => {
  primed();
  const edited = SOURCE.replace('forty', 'fifty');
  assert.is(edited.length, SOURCE.length);
  const loaded = load(bundleOf(edited));
  assert.is(loaded.cache, 'miss');
  assert.is(loaded.exports.answer(), 'fifty-two');
});

CodeCache('should not read a cache that is a link, or that others can write', () => {
  const path = primed();
  const real = `${path}.real`;
  copyFileSync(path, real);
  rmSync(path);
  symlinkSync(real, path);
  assert.is(load(bundleOf()).cache, 'refused', 'a link');
  rmSync(path);
  copyFileSync(real, path);
  chmodSync(path, 0o622);
  assert.is(load(bundleOf()).cache, 'refused', 'group and others may write');
  chmodSync(path, 0o600);
  assert.is(load(bundleOf()).cache, 'hit');
});

CodeCache('should write no cache once V8 flags changed since the load, unless the wasm tier choice is undone', () => {
  // Its own process: V8 flags are per process, and a tier is chosen once per process.
  const script = `
    import { loadWithCodeCache } from ${JSON.stringify(new URL('./code-cache.ts', import.meta.url).href)};
    import { useBaselineWasmTier, undoWasmTierChoice } from ${JSON.stringify(new URL('../transport/wasm/node/wasm-tier.ts', import.meta.url).href)};
    const loaded = loadWithCodeCache({ bundle: ${JSON.stringify(bundleOf())}, cacheDir: ${JSON.stringify(join(dir, 'flags'))} });
    useBaselineWasmTier();
    const changed = loaded.keep();
    undoWasmTierChoice();
    console.log(JSON.stringify([loaded.cache, changed, loaded.keep()]));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
  assert.equal(JSON.parse(out), ['miss', false, true]);
});

CodeCache('should keep a cache per set of node options, which V8 would reject each other\'s cache for', () => {
  const pathUnder = (...options: string[]): string => execFileSync(process.execPath, [...options, '--import', 'tsx', '--input-type=module', '-e', `import { codeCachePath } from ${JSON.stringify(new URL('./code-cache.ts', import.meta.url).href)}; console.log(codeCachePath('/c', '${'a'.repeat(64)}'))`], { encoding: 'utf8', cwd: fileURLToPath(new URL('../../..', import.meta.url)) }).trim();
  const plain = pathUnder();
  assert.is(pathUnder(), plain);
  assert.is.not(pathUnder('--no-liftoff-only'), plain);
});

CodeCache('should keep a cache per variant (the command), each with its own functions, a bad one refused alone, and none pruning the others', () => {
  rmSync(cacheDir, { recursive: true, force: true });
  const loadAs = (variant: string) => loadWithCodeCache<Probe>({ bundle: bundleOf(), cacheDir, globals: { __mepValue: 7 }, variant });
  const sha = execFileSync('sha256sum', [bundleOf()], { encoding: 'utf8' }).split(' ')[0] as string;
  // More variants than the other bundles' caches kept: none of this bundle's is dropped.
  const variants = ['compile', 'generate', 'validate', 'transform', 'call'];
  for (const variant of variants) {
    const first = loadAs(variant);
    assert.is(first.cache, 'miss', variant);
    if (variant !== 'call') first.exports.answer();
    assert.ok(first.keep(), variant);
  }
  assert.equal(readdirSync(cacheDir).sort(), variants.map((v) => basename(codeCachePath(cacheDir, sha, v))).sort());
  for (const variant of variants) assert.is(loadAs(variant).cache, 'hit', variant);
  // The file of one variant corrupted: refused and rewritten, the others still taken.
  const generate = codeCachePath(cacheDir, sha, 'generate');
  const bytes = readFileSync(generate);
  bytes[bytes.length - 100] ^= 0xff;
  writeFileSync(generate, bytes, { mode: 0o600 });
  const refused = loadAs('generate');
  assert.is(refused.cache, 'refused');
  assert.is(refused.exports.answer(), 'forty-two');
  assert.ok(refused.keep());
  assert.is(loadAs('generate').cache, 'hit');
  assert.is(loadAs('compile').cache, 'hit');
  // A name part only: a variant cannot reach outside the cache directory.
  assert.is(dirname(codeCachePath(cacheDir, sha, '../../x/y')), cacheDir);
});

CodeCache.run();
