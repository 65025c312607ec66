import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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
  const sum = createHash('sha256').update(basename(path)).update('\0').update(foreign).digest(); // over the file's name and its body
  writeFileSync(path, Buffer.concat([header, sum, foreign]), { mode: 0o600 });
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

CodeCache("should refuse a cache renamed or copied to another bundle's name (V8 ran the other bundle's code: a same-length bundle answered its predecessor's result)", () => {
  const path = primed();
  const edited = SOURCE.replace('forty', 'fifty');
  const bundle = bundleOf(edited);
  // Whoever can rename files in the folder (a MEP_HOME on a folder another user writes) can put an
  // older mep's cache, a file of this user's, under the new bundle's name.
  copyFileSync(path, cacheOf(bundle));
  chmodSync(cacheOf(bundle), 0o600);
  const loaded = load(bundle);
  assert.is(loaded.exports.answer(), 'fifty-two');
  assert.is(loaded.cache, 'refused');
});

CodeCache('should neither read nor write a cache in a folder others can write or another user owns (a MEP_HOME on their folder)', () => {
  primed();
  chmodSync(cacheDir, 0o777);
  try {
    const loaded = load(bundleOf());
    assert.is(loaded.cache, 'refused');
    assert.is(loaded.exports.answer(), 'forty-two');
    const before = readdirSync(cacheDir).sort();
    assert.not.ok(loaded.keep(), 'nothing written there');
    assert.equal(readdirSync(cacheDir).sort(), before);
    if (process.getuid?.() === 0) {
      chmodSync(cacheDir, 0o700);
      chownSync(cacheDir, 65534, 65534); // nobody's: root reads it all the same, but it is not the user's
      assert.is(load(bundleOf()).cache, 'refused');
      chownSync(cacheDir, 0, 0);
    }
  } finally {
    chmodSync(cacheDir, 0o700);
  }
  assert.is(load(bundleOf()).cache, 'hit');
});

CodeCache('should leave no partial file when the write fails (a full disk, a file size limit), and end as it would have', () => {
  const cache = join(dir, 'full');
  const script = `
    import { loadWithCodeCache } from ${JSON.stringify(new URL('./code-cache.ts', import.meta.url).href)};
    const loaded = loadWithCodeCache({ bundle: ${JSON.stringify(bundleOf())}, cacheDir: ${JSON.stringify(cache)} });
    loaded.exports.answer();
    console.log(JSON.stringify([loaded.cache, loaded.keep()]));`;
  // The cache (hundreds of bytes here) does not fit in 64: the write fails with EFBIG, as with ENOSPC.
  const out = execFileSync('prlimit', ['--fsize=64', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
  assert.equal(JSON.parse(out), ['miss', false]);
  assert.equal(readdirSync(cache), [], 'a partial temporary file stays');
});

CodeCache('should not wait on a FIFO at the cache\'s name (one swapped in under a folder above it that another user owns): open blocked for good', () => {
  const cache = join(dir, 'fifo');
  const bundle = bundleOf();
  rmSync(cache, { recursive: true, force: true });
  execFileSync('mkdir', ['-m', '700', cache]);
  const sha = execFileSync('sha256sum', [bundle], { encoding: 'utf8' }).split(' ')[0] as string;
  // The name is this node's (its options included): made in the process that loads.
  const script = `
    import { execFileSync } from 'node:child_process';
    import { codeCachePath, loadWithCodeCache } from ${JSON.stringify(new URL('./code-cache.ts', import.meta.url).href)};
    execFileSync('mkfifo', [codeCachePath(${JSON.stringify(cache)}, '${sha}')]);
    const loaded = loadWithCodeCache({ bundle: ${JSON.stringify(bundle)}, cacheDir: ${JSON.stringify(cache)} });
    console.log(JSON.stringify([loaded.cache, loaded.exports.answer()]));`;
  // A hang guard, not a timing assertion: the load takes well under a second.
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
  assert.equal(JSON.parse(out), ['refused', 'forty-two']);
});

CodeCache('should remove, when it writes, the temporary files of writers killed mid-write an hour ago, not those of a writer at work', () => {
  rmSync(cacheDir, { recursive: true, force: true });
  execFileSync('mkdir', ['-p', '-m', '700', cacheDir]);
  const killed = join(cacheDir, '.0123-4567.v8c.0a0b0c0d0e0f.tmp');
  const working = join(cacheDir, '.89ab-cdef.v8c.1a1b1c1d1e1f.tmp');
  writeFileSync(killed, 'half', { mode: 0o600 });
  writeFileSync(working, 'half', { mode: 0o600 });
  const anHourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(killed, anHourAgo, anHourAgo);
  const loaded = load(bundleOf());
  assert.ok(loaded.keep());
  assert.not.ok(existsSync(killed), 'a killed writer\'s file stays for good');
  assert.ok(existsSync(working), 'a writer at work keeps its file');
});

CodeCache.run();
