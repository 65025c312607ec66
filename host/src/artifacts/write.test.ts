import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { validateArtifacts } from './validate.ts';
import { openStagedOutput, writeArtifacts } from './write.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-artifacts-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const inOrder = suite('writeArtifacts :: order');

inOrder('should report the paths in the order the extension returned them, not sorted', () =>
  withDir(async (dir) => {
    // A load order (the Avro shared layout): catalog before billing, the index last.
    const paths = ['shop/catalog.avsc', 'shop/customers.avsc', 'shop/billing.avsc', 'load-order.json'];
    const report = await writeArtifacts(join(dir, 'out'), validateArtifacts('ext', paths.map((path) => ({ path, content: '{}', binary: false }))));
    assert.equal(report.written, paths);
  }),
);

inOrder.run();

const Staged = suite('openStagedOutput');

const text = (path: string, content = path) => ({ path, content, binary: false });

Staged('should publish files added one at a time, and make the output directory only then', () =>
  withDir(async (dir) => {
    const out = join(dir, 'deep', 'out');
    const output = await openStagedOutput(out, 'ext');
    await output.add(text('b/2.txt'));
    await Promise.all([output.add(text('a/1.txt')), output.add(text('c.txt'))]);
    const before = await readdir(dir);
    assert.is(before.length, 1);
    assert.ok(before[0]?.startsWith('.mep-staging-'), `only the staging directory so far: ${before.join(', ')}`);
    const report = await output.publish();
    assert.equal(report.written, ['b/2.txt', 'a/1.txt', 'c.txt']);
    assert.is(await readFile(join(out, 'a', '1.txt'), 'utf8'), 'a/1.txt');
    assert.equal(await readdir(dir), ['deep'], 'no staging directory left');
    const late = await output.add(text('late.txt')).then(() => undefined, (e: unknown) => e);
    assert.ok(isMepError(late) && late.code === LocalErrorCode.Artifact, 'nothing is added after publishing');
  }),
);

Staged('should leave the output directory as it was on abort, and on a failed add :: hostile', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    await writeFile(join(out, 'keep.txt'), 'kept');
    const aborted = await openStagedOutput(out, 'ext');
    await aborted.add(text('keep.txt', 'replaced'));
    await aborted.abort();
    assert.is(await readFile(join(out, 'keep.txt'), 'utf8'), 'kept');
    // A link inside the output that leads out of it: that add fails, and so does publishing.
    const outside = join(dir, 'outside');
    await mkdir(outside);
    await symlink(outside, join(out, 'link'));
    const output = await openStagedOutput(out, 'ext');
    await output.add(text('new.txt'));
    const failed = await output.add(text('link/escape.txt')).then(() => undefined, (e: unknown) => e);
    assert.ok(isMepError(failed) && failed.code === LocalErrorCode.Artifact, String(failed));
    const refused = await output.publish().then(() => undefined, (e: unknown) => e);
    assert.ok(isMepError(refused) && refused.code === LocalErrorCode.Artifact, String(refused));
    assert.equal((await readdir(out)).sort(), ['keep.txt', 'link'], 'nothing published');
    assert.equal(await readdir(outside), []);
    assert.equal((await readdir(dir)).sort(), ['out', 'outside'], 'no staging directory left');
  }),
);

Staged.run();

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => assert.unreachable('expected a failure'), (e: unknown) => e);

const Write = suite('writeArtifacts');

Write('should write text and binary artifacts, nested, and report their bytes', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const files = validateArtifacts('ext', [
      { path: 'a/b/c.avsc', content: '{"type":"string"}', binary: false },
      { path: 'bin/x.bin', content: 'AAEC/w==', binary: true },
      { path: 'top.txt', content: 'héllo 😀', binary: false },
    ]);
    const report = await writeArtifacts(out, files);
    assert.equal(report.written, ['a/b/c.avsc', 'bin/x.bin', 'top.txt']);
    assert.is(await readFile(join(out, 'a/b/c.avsc'), 'utf8'), '{"type":"string"}');
    assert.equal([...(await readFile(join(out, 'bin/x.bin')))], [0, 1, 2, 255]);
    assert.is(await readFile(join(out, 'top.txt'), 'utf8'), 'héllo 😀');
    assert.is(report.bytes, 17 + 4 + Buffer.byteLength('héllo 😀'));
    assert.equal((await readdir(dir)).sort(), ['out'], 'no staging directory left');
  }),
);

Write('should stream a large artifact in chunks without splitting a character :: multibyte', () =>
  withDir(async (dir) => {
    // 3 MiB of 4-byte characters: chunk edges fall on surrogate pairs.
    const content = `x${'😀'.repeat(3 * 1024 * 1024)}`;
    const binary = Buffer.alloc(3 * 1024 * 1024 + 7, 7).toString('base64');
    const report = await writeArtifacts(dir, validateArtifacts('ext', [{ path: 'big.txt', content, binary: false }, { path: 'big.bin', content: binary, binary: true }]));
    assert.ok((await readFile(join(dir, 'big.txt'), 'utf8')) === content, 'text intact');
    assert.ok((await readFile(join(dir, 'big.bin'))).equals(Buffer.alloc(3 * 1024 * 1024 + 7, 7)), 'binary intact');
    assert.is(report.bytes, Buffer.byteLength(content) + 3 * 1024 * 1024 + 7);
  }),
);

Write('should replace existing files and keep unrelated ones', () =>
  withDir(async (dir) => {
    await writeFile(join(dir, 'a.txt'), 'old');
    await writeFile(join(dir, 'keep.txt'), 'mine');
    await writeArtifacts(dir, validateArtifacts('ext', [{ path: 'a.txt', content: 'new', binary: false }]));
    assert.is(await readFile(join(dir, 'a.txt'), 'utf8'), 'new');
    assert.is(await readFile(join(dir, 'keep.txt'), 'utf8'), 'mine');
  }),
);

Write('should leave the output as it was when a write fails midway :: all-or-nothing', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    await writeFile(join(out, 'a.txt'), 'old');
    // "x" is a file, so "x/y.txt" cannot be moved into place after "a.txt" already was.
    await writeFile(join(out, 'x'), 'a file in the way');
    const error = await rejection(
      writeArtifacts(out, validateArtifacts('acme.gen', [
        { path: 'a.txt', content: 'new', binary: false },
        { path: 'x/y.txt', content: 'y', binary: false },
      ])),
    );
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Artifact);
    assert.match(error.message, /acme\.gen.*left as it was/);
    assert.is(await readFile(join(out, 'a.txt'), 'utf8'), 'old', 'the replaced file is restored');
    assert.is(await readFile(join(out, 'x'), 'utf8'), 'a file in the way');
    assert.equal((await readdir(out)).sort(), ['a.txt', 'x']);
    assert.equal((await readdir(dir)).sort(), ['out'], 'no staging directory left');
  }),
);

Write('should restore every replaced file when one of many moves fails, with none still moving :: all-or-nothing', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    const names = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
    for (const name of names) await writeFile(join(out, name), `old ${name}`);
    await writeFile(join(out, 'blocked'), 'a file in the way');
    const artifacts = names.map((name) => ({ path: name, content: `new ${name}`, binary: false }));
    // In the middle of the list: files before and after it are moved side by side with it.
    artifacts.splice(20, 0, { path: 'blocked/inner.txt', content: 'x', binary: false });
    const error = await rejection(writeArtifacts(out, validateArtifacts('acme.gen', artifacts)));
    assert.ok(isMepError(error));
    // Nothing may still be moving once the error is out: wait a little and look again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const name of names) assert.is(await readFile(join(out, name), 'utf8'), `old ${name}`, name);
    assert.equal((await readdir(out)).sort(), [...names, 'blocked'].sort());
    assert.equal((await readdir(dir)).sort(), ['out'], 'no staging directory left');
  }),
);

Write('should refuse to write through a symlink that leaves the output directory :: hostile', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const outside = join(dir, 'outside');
    await mkdir(out);
    await mkdir(outside);
    await symlink(outside, join(out, 'link'));
    const error = await rejection(writeArtifacts(out, validateArtifacts('ext', [{ path: 'ok.txt', content: 'ok', binary: false }, { path: 'link/evil.txt', content: 'x', binary: false }])));
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Artifact);
    assert.equal(await readdir(outside), []);
    assert.equal((await readdir(out)).sort(), ['link'], 'nothing written, not even the safe file');
  }),
);

Write.run();
