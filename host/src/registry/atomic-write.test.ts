import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { writeTarGz } from './archive/tar-write.ts';
import { replaceAtomically, writeFileAtomic, writeJsonAtomic } from './atomic-write.ts';
import { withGuessedTemp } from './testing/guessed-temp.ts';

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

Atomic('should write neither through nor over a link planted at the temporary name it picks, and leave the link (text, JSON, tar.gz)', () =>
  withTempDir('mep-atomic-', async (dir) => {
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'keep me');
    const writers: [string, (path: string) => Promise<void>][] = [
      ['config.json', (path) => writeFileAtomic(path, '{"a":1}')],
      ['ir.json', (path) => writeJsonAtomic(path, { a: 1 })],
      ['pkg.tgz', (path) => replaceAtomically(path, (temp) => writeTarGz(temp, [{ type: 'directory', path: 'pkg' }]))],
    ];
    for (const [name, write] of writers) {
      let planted = '';
      await withGuessedTemp(join(dir, name), (temp) => symlinkSync(victim, (planted = temp)), () => write(join(dir, name)));
      assert.is(await readFile(victim, 'utf8'), 'keep me', name);
      assert.is(await readlink(planted), victim, `${name}: the planted link is neither followed nor removed`);
      assert.ok((await readFile(join(dir, name))).length > 0, name);
    }
  }),
);

Atomic.run();
