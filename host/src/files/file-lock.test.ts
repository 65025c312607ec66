import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
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

Lock.run();
