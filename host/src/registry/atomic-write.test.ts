import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { writeFileAtomic } from './atomic-write.ts';

const Atomic = suite('writeFileAtomic');

Atomic("should replace the file, and remove the temporary files of killed writers but not a live one's", () =>
  withTempDir('mep-atomic-', async (dir) => {
    const dead = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;
    await writeFile(join(dir, 'ir.json'), 'old');
    await writeFile(join(dir, `.ir.json.${dead}.0badc0de.tmp`), 'half');
    await writeFile(join(dir, `.ir.json.${process.ppid}.1badc0de.tmp`), 'another writer, still running');
    await writeFile(join(dir, `.other.json.${dead}.2badc0de.tmp`), 'not this file');
    await writeFileAtomic(join(dir, 'ir.json'), 'new');
    assert.is(await readFile(join(dir, 'ir.json'), 'utf8'), 'new');
    assert.equal((await readdir(dir)).sort(), [`.ir.json.${process.ppid}.1badc0de.tmp`, `.other.json.${dead}.2badc0de.tmp`, 'ir.json']);
  }),
);

Atomic.run();
