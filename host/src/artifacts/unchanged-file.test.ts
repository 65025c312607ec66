import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import fs, { existsSync } from 'node:fs';
import { chown, link, lstat, mkdir, readFile, readdir, rename, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { openStagedOutput } from './staged-output.ts';
import { keepUnchanged } from './unchanged-file.ts';
import type { ValidatedFile } from './validate.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { withPatchedBuiltin } from '../../../fixtures/testing/patched-builtin.ts';

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-unchanged-', fn);
const text = (path: string, content = path): ValidatedFile => ({ path, content, binary: false });
const LONG_AGO = new Date('2020-01-02T03:04:05Z');

/** Publishes `files` to `out` in one staged output. */
async function generate(out: string, files: ValidatedFile[]): Promise<number> {
  const output = await openStagedOutput(out);
  const sizes = await Promise.all(files.map((f) => output.add(f)));
  await output.publish();
  return sizes.reduce((a, b) => a + b, 0);
}

/** Inode, modification time (ms) and content of each path of `out`. */
async function snapshot(out: string, paths: string[]): Promise<Map<string, { ino: number; mtime: number; content: string }>> {
  const seen = new Map<string, { ino: number; mtime: number; content: string }>();
  for (const path of paths) {
    const info = await lstat(join(out, path));
    seen.set(path, { ino: info.ino, mtime: info.mtimeMs, content: await readFile(join(out, path), 'latin1') });
  }
  return seen;
}

/** Publishes `files` to `out`, then sets every file's times to long ago (so a kept time shows). */
async function firstGenerate(out: string, files: ValidatedFile[]): Promise<void> {
  await generate(out, files);
  for (const f of files) await utimes(join(out, f.path), LONG_AGO, LONG_AGO);
}

const Unchanged = suite('openStagedOutput, keeping unchanged files');

Unchanged('should keep the inode and modification time of every file whose bytes are unchanged, and write the others anew', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const bin = Buffer.from([0, 1, 2, 255]).toString('base64');
    const kept = [text('a.avsc', '{"type":"record"}'), text('d/e/wide.txt', '中é😀'), { path: 'd/bin.dat', content: bin, binary: true }, text('d/empty.txt', '')];
    await firstGenerate(out, [...kept, text('d/same-size.txt', 'abc'), text('grown.txt', 'x')]);
    const before = await snapshot(out, ['a.avsc', 'd/e/wide.txt', 'd/bin.dat', 'd/empty.txt', 'd/same-size.txt', 'grown.txt']);
    const bytes = await generate(out, [...kept, text('d/same-size.txt', 'abd'), text('grown.txt', 'xy'), text('d/new.txt', 'new')]);
    assert.is(bytes, 17 + 9 + 4 + 0 + 3 + 2 + 3, 'add still reports every size');
    const after = await snapshot(out, [...before.keys(), 'd/new.txt']);
    for (const f of kept) {
      assert.equal(after.get(f.path), before.get(f.path), `${f.path}: same inode, time and content`);
      assert.is((await stat(join(out, f.path))).nlink, 1, `${f.path}: the old tree's link is gone`);
    }
    for (const [path, content] of [['d/same-size.txt', 'abd'], ['grown.txt', 'xy']]) {
      assert.is(after.get(path)?.content, content);
      assert.is.not(after.get(path)?.ino, before.get(path)?.ino, `${path}: a new file`);
      assert.is.not(after.get(path)?.mtime, LONG_AGO.getTime());
    }
    assert.is(after.get('d/new.txt')?.content, 'new');
    assert.equal(await readdir(dir), ['out'], 'no staging left');
  }),
);

Unchanged('should not keep a symbolic link of the same content: the output gets a regular file, the target is untouched', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    await writeFile(join(dir, 'target.txt'), 'same');
    await utimes(join(dir, 'target.txt'), LONG_AGO, LONG_AGO);
    await symlink('../target.txt', join(out, 'a.txt'));
    const target = await stat(join(dir, 'target.txt'));
    await generate(out, [text('a.txt', 'same')]);
    const written = await lstat(join(out, 'a.txt'));
    assert.ok(written.isFile(), 'a regular file, not a link');
    assert.is.not(written.ino, target.ino);
    assert.is(await readFile(join(out, 'a.txt'), 'utf8'), 'same');
    const after = await stat(join(dir, 'target.txt'));
    assert.equal([after.ino, after.nlink, after.mtimeMs], [target.ino, 1, LONG_AGO.getTime()]);
  }),
);

Unchanged('should not share with the new output a file the user hard-linked elsewhere', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await firstGenerate(out, [text('a.txt', 'same')]);
    await link(join(out, 'a.txt'), join(dir, 'mine.txt'));
    await generate(out, [text('a.txt', 'same')]);
    const [mine, output] = [await stat(join(dir, 'mine.txt')), await stat(join(out, 'a.txt'))];
    assert.is.not(output.ino, mine.ino, 'the output file is a new file');
    assert.is(mine.nlink, 1, 'the user keeps the old file alone');
    await writeFile(join(dir, 'mine.txt'), 'edited by the user');
    assert.is(await readFile(join(out, 'a.txt'), 'utf8'), 'same');
  }),
);

Unchanged('should not keep a file of another user', async () => {
  if (process.getuid?.() !== 0) return; // only root can give a file away
  await withDir(async (dir) => {
    const out = join(dir, 'out');
    await firstGenerate(out, [text('a.txt', 'same')]);
    await chown(join(out, 'a.txt'), 12345, 12345);
    const before = await stat(join(out, 'a.txt'));
    await generate(out, [text('a.txt', 'same')]);
    const after = await stat(join(out, 'a.txt'));
    assert.is.not(after.ino, before.ino);
    assert.is(after.uid, 0);
  });
});

Unchanged('should replace a FIFO at an artifact path, as before, without waiting for a writer', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    execFileSync('mkfifo', [join(out, 'p.txt')]);
    await generate(out, [text('p.txt', '')]);
    assert.ok((await lstat(join(out, 'p.txt'))).isFile());
  }),
);

Unchanged('should not keep a file through a directory that is a symbolic link, and still refuse it at publish', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    await mkdir(join(dir, 'elsewhere'));
    await writeFile(join(dir, 'elsewhere', 'c.txt'), 'same');
    await symlink('../elsewhere', join(out, 'd'));
    const output = await openStagedOutput(out);
    await output.add(text('d/c.txt', 'same'));
    assert.is((await stat(join(dir, 'elsewhere', 'c.txt'))).nlink, 1, 'not linked into the staged tree');
    const refused = await output.publish().then(
      () => undefined,
      (e: unknown) => (isMepError(e) ? e.code : e),
    );
    assert.is(refused, LocalErrorCode.Artifact);
    assert.ok((await lstat(join(out, 'd'))).isSymbolicLink());
  }),
);

Unchanged('should leave the old output inode for inode when aborted after keeping files', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const files = [text('a.txt', 'one'), text('d/b.txt', 'two'), text('d/c.txt', 'three')];
    await firstGenerate(out, files);
    const before = await snapshot(out, ['a.txt', 'd/b.txt', 'd/c.txt']);
    const output = await openStagedOutput(out);
    for (const f of files) await output.add(f);
    assert.is((await stat(join(out, 'a.txt'))).nlink, 2, 'kept: linked into the staged tree');
    assert.is(await output.abort(), 'aborted');
    assert.equal(await snapshot(out, ['a.txt', 'd/b.txt', 'd/c.txt']), before);
    for (const f of files) assert.is((await stat(join(out, f.path))).nlink, 1, `${f.path}: the staged link is gone`);
    assert.equal(await readdir(dir), ['out'], 'no staging left');
  }),
);

Unchanged('should not keep a file whose name was given to another file between the compare and the link', () =>
  withDir(async (dir) => {
    const old = join(dir, 'old.txt');
    await writeFile(old, 'same');
    await writeFile(join(dir, 'other.txt'), 'other');
    const bytes = Buffer.from('same');
    const swapped = async (_path: string, create: () => Promise<void>): Promise<void> => {
      await rename(join(dir, 'other.txt'), old);
      return create();
    };
    assert.is(await keepUnchanged(old, join(dir, 'staged.txt'), bytes, bytes.length, swapped), false);
    assert.not.ok(existsSync(join(dir, 'staged.txt')), 'the link to the other file is removed');
    assert.is(await keepUnchanged(old, join(dir, 'staged.txt'), bytes, bytes.length, (_p, create) => create()), false, 'different bytes now');
  }),
);

Unchanged('should write anew where the link is refused', () =>
  withDir(async (dir) => {
    const old = join(dir, 'old.txt');
    await writeFile(old, 'same');
    const bytes = Buffer.from('same');
    const refused = async (): Promise<void> => {
      throw Object.assign(new Error('EMLINK: too many links'), { code: 'EMLINK' });
    };
    assert.is(await keepUnchanged(old, join(dir, 'staged.txt'), bytes, bytes.length, refused), false);
    assert.is(await keepUnchanged(old, join(dir, 'staged.txt'), bytes, bytes.length, (_p, create) => create()), true);
    assert.is((await stat(join(dir, 'staged.txt'))).ino, (await stat(old)).ino);
  }),
);

Unchanged('should never open a device node at an artifact path, and replace it as before', async () => {
  if (process.getuid?.() !== 0) return; // only root can make a device node
  await withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    execFileSync('mknod', [join(out, 'dev.txt'), 'c', '1', '3']); // /dev/null's numbers: empty, like the artifact
    const opened: string[] = [];
    const recorded = (realOpenSync: typeof fs.openSync) =>
      ((path: fs.PathLike, ...rest: unknown[]) => {
        opened.push(String(path));
        return (realOpenSync as (...a: unknown[]) => number)(path, ...rest);
      }) as typeof fs.openSync;
    await withPatchedBuiltin(fs, 'openSync', recorded, () => generate(out, [text('dev.txt', '')]));
    assert.equal(opened.filter((p) => p.endsWith('dev.txt')), [], 'the device was opened');
    const after = await lstat(join(out, 'dev.txt'));
    assert.ok(after.isFile(), 'the artifact is a regular file now');
    assert.is(after.size, 0);
  });
});

Unchanged.run();
