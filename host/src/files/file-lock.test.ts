import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { withFileLock } from './file-lock.ts';

const Lock = suite('files :: file-lock');

Lock('should refuse a lock path planted as a symbolic link at once, naming it, and leave its target alone :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-file-lock-'));
  try {
    await writeFile(join(dir, 'victim'), '1\n');
    const lock = join(dir, 'state.json.lock');
    await symlink(join(dir, 'victim'), lock);
    let ran = false;
    const error = await withFileLock(lock, async () => (ran = true), { what: 'the state', waitMs: 200 }).then(
      () => {
        throw new Error('took a planted link as its lock');
      },
      (e: unknown) => e as MepError,
    );
    assert.equal([error.code, (error.data as { reason: string; lock: string }).reason, (error.data as { lock: string }).lock], [LocalErrorCode.Usage, 'not-a-lock', lock]);
    assert.match(error.message, lock);
    assert.not.ok(ran);
    assert.is(await readFile(join(dir, 'victim'), 'utf8'), '1\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Lock('should refuse a lock file larger than any mep writes at once, never reading it (a cloned project ships one of 1.5 GB) :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-file-lock-'));
  try {
    const lock = join(dir, 'extensions.lock.lock');
    // Sparse: no disk taken. Before, each turn of the 10 s wait read it whole (1.17 GB RSS, 21 s).
    await writeFile(lock, '1\n');
    await truncate(lock, 1536 * 1024 * 1024);
    const heapBefore = process.memoryUsage().rss;
    const started = Date.now();
    let ran = false;
    const error = await withFileLock(lock, async () => (ran = true), { what: 'the lock', waitMs: 10_000 }).then(
      () => {
        throw new Error('took a planted file as a lock it could remove');
      },
      (e: unknown) => e as MepError,
    );
    assert.equal([error.code, (error.data as { reason: string }).reason, (error.data as { lock: string }).lock], [LocalErrorCode.Usage, 'not-a-lock', lock], error.message);
    assert.match(error.message, /bytes/);
    assert.ok(Date.now() - started < 5_000, `refused at once, not after the wait (${Date.now() - started} ms)`);
    assert.ok(process.memoryUsage().rss - heapBefore < 64 * 1024 * 1024, 'the file was not read');
    assert.not.ok(ran);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Lock.run();
