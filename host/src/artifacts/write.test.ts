import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmod, link, lstat, mkdir, readFile, readdir, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { validateArtifacts } from './validate.ts';
import { openStagedOutput } from './staged-output.ts';
import { writeArtifacts } from './write.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-artifacts-', fn);

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

const Staged = suite('openStagedOutput :: order');

Staged('should report files added one at a time (streamed) in the order they were added', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const output = await openStagedOutput(out, { extension: 'ext' });
    const file = (path: string) => ({ path, content: path, binary: false });
    await output.add(file('b/2.txt'));
    await Promise.all([output.add(file('a/1.txt')), output.add(file('c.txt'))]);
    const report = await output.publish();
    assert.equal(report.written, ['b/2.txt', 'a/1.txt', 'c.txt']);
    assert.is(await readFile(join(out, 'a', '1.txt'), 'utf8'), 'a/1.txt');
  }),
);

Staged.run();

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => assert.unreachable('expected a failure'), (e: unknown) => e);
const text = (path: string, content: string) => ({ path, content, binary: false });

const Write = suite('writeArtifacts');

Write('should write text and binary artifacts, nested, and report their bytes', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const files = validateArtifacts('ext', [text('a/b/c.avsc', '{"type":"string"}'), { path: 'bin/x.bin', content: 'AAEC/w==', binary: true }, text('top.txt', 'héllo 😀')]);
    const report = await writeArtifacts(out, files);
    assert.equal(report.written, ['a/b/c.avsc', 'bin/x.bin', 'top.txt']);
    assert.is(await readFile(join(out, 'a/b/c.avsc'), 'utf8'), '{"type":"string"}');
    assert.equal([...(await readFile(join(out, 'bin/x.bin')))], [0, 1, 2, 255]);
    assert.is(await readFile(join(out, 'top.txt'), 'utf8'), 'héllo 😀');
    assert.is(report.bytes, 17 + 4 + Buffer.byteLength('héllo 😀'));
    assert.equal((await readdir(dir)).sort(), ['out'], 'no staging directory or journal left');
  }),
);

Write('should stream a large artifact in chunks without splitting a character :: multibyte', () =>
  withDir(async (dir) => {
    // 3 MiB of 4-byte characters: chunk edges fall on surrogate pairs.
    const content = `x${'😀'.repeat(3 * 1024 * 1024)}`;
    const binary = Buffer.alloc(3 * 1024 * 1024 + 7, 7).toString('base64');
    const out = join(dir, 'out');
    const report = await writeArtifacts(out, validateArtifacts('ext', [text('big.txt', content), { path: 'big.bin', content: binary, binary: true }]));
    assert.ok((await readFile(join(out, 'big.txt'), 'utf8')) === content, 'text intact');
    assert.ok((await readFile(join(out, 'big.bin'))).equals(Buffer.alloc(3 * 1024 * 1024 + 7, 7)), 'binary intact');
    assert.is(report.bytes, Buffer.byteLength(content) + 3 * 1024 * 1024 + 7);
  }),
);

Write('should replace the artifacts and keep every other file, link and mode of the output :: overwrite', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(join(out, 'gen/old'), { recursive: true });
    await mkdir(join(out, 'mine/deep'), { recursive: true });
    await writeFile(join(out, 'gen/a.avsc'), 'old a');
    await writeFile(join(out, 'gen/old/stale.avsc'), 'from an earlier run');
    await writeFile(join(out, 'mine/deep/notes.md'), 'hand written');
    await writeFile(join(out, 'README'), 'keep me');
    await chmod(join(out, 'README'), 0o600);
    await chmod(join(out, 'mine'), 0o750);
    await symlink('mine/deep/notes.md', join(out, 'notes-link'));
    const readmeInode = (await stat(join(out, 'README'))).ino;

    await writeArtifacts(out, validateArtifacts('ext', [text('gen/a.avsc', 'new a'), text('gen/b.avsc', 'new b')]));

    assert.is(await readFile(join(out, 'gen/a.avsc'), 'utf8'), 'new a');
    assert.is(await readFile(join(out, 'gen/b.avsc'), 'utf8'), 'new b');
    assert.is(await readFile(join(out, 'gen/old/stale.avsc'), 'utf8'), 'from an earlier run', 'files the extension did not return are kept');
    assert.is(await readFile(join(out, 'mine/deep/notes.md'), 'utf8'), 'hand written');
    assert.is(await readFile(join(out, 'README'), 'utf8'), 'keep me');
    assert.is((await stat(join(out, 'README'))).ino, readmeInode, 'the same file, not a copy');
    assert.is((await stat(join(out, 'README'))).mode & 0o777, 0o600);
    assert.is((await stat(join(out, 'mine'))).mode & 0o777, 0o750);
    assert.is(await readlink(join(out, 'notes-link')), 'mine/deep/notes.md');
    assert.equal((await readdir(out)).sort(), ['README', 'gen', 'mine', 'notes-link']);
    assert.equal((await readdir(dir)).sort(), ['out']);
  }),
);

Write('should leave the output as it was when an artifact needs a file of the output as its directory :: all-or-nothing', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    await writeFile(join(out, 'a.txt'), 'old');
    await writeFile(join(out, 'x'), 'a file in the way');
    const error = await rejection(writeArtifacts(out, validateArtifacts('acme.gen', [text('a.txt', 'new'), text('x/y.txt', 'y')])));
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Artifact);
    assert.is((error.data as { path: string }).path, 'x');
    assert.is(await readFile(join(out, 'a.txt'), 'utf8'), 'old', 'the file the artifact would replace is untouched');
    assert.is(await readFile(join(out, 'x'), 'utf8'), 'a file in the way');
    assert.equal((await readdir(out)).sort(), ['a.txt', 'x']);
    assert.equal((await readdir(dir)).sort(), ['out'], 'no staging directory or journal left');
  }),
);

Write('should refuse an artifact that would replace a directory of the output :: all-or-nothing', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(join(out, 'schemas'), { recursive: true });
    await writeFile(join(out, 'schemas/kept.avsc'), 'mine');
    const names = Array.from({ length: 40 }, (_, i) => text(`f${String(i).padStart(2, '0')}.txt`, `new ${i}`));
    const error = await rejection(writeArtifacts(out, validateArtifacts('acme.gen', [...names, text('schemas', 'a file where a directory is')])));
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Artifact);
    assert.equal(await readdir(out), ['schemas']);
    assert.equal((await readdir(dir)).sort(), ['out']);
  }),
);

Write('should refuse to write through a symbolic link of the output, even to a directory inside it :: hostile', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const outside = join(dir, 'outside');
    await mkdir(join(out, 'inside'), { recursive: true });
    await mkdir(outside);
    await symlink(outside, join(out, 'link'));
    await symlink('inside', join(out, 'inner-link'));
    for (const path of ['link/evil.txt', 'inner-link/x.txt']) {
      const error = await rejection(writeArtifacts(out, validateArtifacts('ext', [text('ok.txt', 'ok'), text(path, 'x')])));
      assert.ok(isMepError(error));
      assert.is(error.code, LocalErrorCode.Artifact, path);
    }
    assert.equal(await readdir(outside), []);
    assert.equal((await readdir(out)).sort(), ['inner-link', 'inside', 'link'], 'nothing written, not even the safe file');
  }),
);

Write('should write into the directory a symbolic link output points to, and keep the link', () =>
  withDir(async (dir) => {
    await mkdir(join(dir, 'real'));
    await writeFile(join(dir, 'real/kept'), 'k');
    await symlink('real', join(dir, 'out'));
    const report = await writeArtifacts(join(dir, 'out'), validateArtifacts('ext', [text('a.txt', 'a')]));
    assert.is(report.outDir, join(dir, 'real'));
    assert.ok((await lstat(join(dir, 'out'))).isSymbolicLink());
    assert.equal((await readdir(join(dir, 'out'))).sort(), ['a.txt', 'kept']);
  }),
);

Write('should keep a file that has other names, and write an output that did not exist with its parents', () =>
  withDir(async (dir) => {
    const out = join(dir, 'a/b/out');
    const report = await writeArtifacts(out, validateArtifacts('ext', [text('one.txt', '1')]));
    assert.is(report.outDir, out);
    await writeFile(join(dir, 'elsewhere'), 'shared');
    await link(join(dir, 'elsewhere'), join(out, 'shared'));
    await writeArtifacts(out, validateArtifacts('ext', [text('two.txt', '2')]));
    assert.equal((await readdir(out)).sort(), ['one.txt', 'shared', 'two.txt']);
    assert.is((await stat(join(out, 'shared'))).nlink, 2, 'still the file named elsewhere');
  }),
);

Write.run();
