import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_ARCHIVE_LIMITS } from './budget.ts';
import { extractArchive } from './extract.ts';
import { FIXED_MTIME, writeTarGz } from './tar-write.ts';
import type { TarMember } from './tar-write.ts';

const run = promisify(execFile);
const long = `top/${'d'.repeat(90)}/${'n'.repeat(90)}.txt`;
const unicode = 'top/café/naïve-日本.txt';

async function members(dir: string): Promise<TarMember[]> {
  await writeFile(join(dir, 'source.bin'), 'from disk');
  return [
    { type: 'directory', path: 'top' },
    { type: 'file', path: 'top/run', executable: true, data: new TextEncoder().encode('#!/bin/sh\n') },
    { type: 'file', path: 'top/disk.bin', executable: false, size: 9, source: join(dir, 'source.bin') },
    { type: 'file', path: long, executable: false, data: new TextEncoder().encode('long') },
    { type: 'file', path: unicode, executable: false, data: new TextEncoder().encode('unicode') },
  ];
}

const Write = suite('registry :: writeTarGz');

Write('should write long and non-ASCII names, modes and one fixed mtime that GNU tar and our reader both read', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-tar-write-'));
  try {
    const file = join(dir, 'out.tgz');
    await writeTarGz(file, await members(dir));
    const listing = (await run('tar', ['--utc', '-tvzf', file])).stdout;
    assert.ok(listing.includes('1980-01-01 00:00'), listing);
    assert.ok(listing.includes(long) && listing.includes(unicode), listing);
    for (const [name, reader] of [['gnu', 'tar'], ['ours', 'mep']] as const) {
      const out = join(dir, name);
      await mkdir(out);
      if (reader === 'tar') await run('tar', ['-xzf', file, '-C', out]);
      else await extractArchive({ file, format: 'tar.gz', root: out, archive: 'out.tgz', limits: DEFAULT_ARCHIVE_LIMITS });
      assert.is(await readFile(join(out, long), 'utf8'), 'long', name);
      assert.is(await readFile(join(out, unicode), 'utf8'), 'unicode', name);
      assert.is(await readFile(join(out, 'top/disk.bin'), 'utf8'), 'from disk', name);
      assert.is((await stat(join(out, 'top/run'))).mode & 0o777, 0o755, name);
      assert.is((await stat(join(out, 'top/disk.bin'))).mode & 0o777, 0o644, name);
    }
    assert.is((await stat(join(dir, 'gnu/top/run'))).mtimeMs, FIXED_MTIME * 1000);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Write('should refuse a source file that changed size while it was written', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-tar-write-'));
  try {
    await writeFile(join(dir, 'grew.bin'), 'more than declared');
    const error = await writeTarGz(join(dir, 'x.tgz'), [{ type: 'file', path: 'grew.bin', executable: false, size: 4, source: join(dir, 'grew.bin') }]).catch((e) => e);
    assert.instance(error, Error);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Write.run();
