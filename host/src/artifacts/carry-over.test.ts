import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat, symlink, utimes, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { carryFile } from './carry-over.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-carry-', fn);

/** A file system that refuses hard links (a copy must stand in). */
const refusingLink = async (): Promise<void> => {
  throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
};

const refusal = async (p: Promise<unknown>): Promise<{ code: unknown; reason: unknown }> =>
  p.then(
    () => {
      assert.unreachable('expected a refusal');
      return { code: undefined, reason: undefined };
    },
    (e: unknown) => ({ code: isMepError(e) ? e.code : e, reason: isMepError(e) ? (e.data as { reason?: unknown }).reason : undefined }),
  );

const Carry = suite('carryFile, where a hard link is refused');

Carry('should copy a regular file with its content, mode and times', () =>
  withDir(async (dir) => {
    const from = join(dir, 'kept.txt');
    await writeFile(from, 'kept');
    await chmod(from, 0o640);
    const when = new Date('2020-01-02T03:04:05Z');
    await utimes(from, when, when);
    await carryFile(from, join(dir, 'copy.txt'), refusingLink);
    assert.is(await readFile(join(dir, 'copy.txt'), 'utf8'), 'kept');
    const info = await stat(join(dir, 'copy.txt'));
    assert.is(info.mode & 0o7777, 0o640);
    assert.is(info.mtime.getTime(), when.getTime());
  }),
);

Carry('should never carry set-user-ID or set-group-ID bits onto the copy, which is a new file of the user running mep :: setuid', () =>
  withDir(async (dir) => {
    // A neighbour who can write a shared output plants its own program, set-user-ID: the kernel
    // refuses mep a hard link to a file it does not own (protected_hardlinks, EPERM), so the file
    // is copied, and the copy is the user's: with the bit carried it ran as the user for anyone.
    const from = join(dir, 'planted');
    await writeFile(from, '#!/bin/sh\nid\n');
    await chmod(from, 0o6755);
    const eperm = async (): Promise<void> => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    };
    await carryFile(from, join(dir, 'copy'), eperm);
    assert.is((await stat(join(dir, 'copy'))).mode & 0o7777, 0o755);
  }),
);

Carry('should refuse a file swapped for a link to a file elsewhere, never copying its target', () =>
  withDir(async (dir) => {
    const secret = join(dir, 'id_ed25519');
    await writeFile(secret, 'PRIVATE KEY');
    const from = join(dir, 'swapped.txt');
    await symlink(secret, from);
    const to = join(dir, 'copy.txt');
    const { code, reason } = await refusal(carryFile(from, to, refusingLink));
    assert.is(code, LocalErrorCode.Artifact);
    assert.is(reason, 'not-a-file');
    assert.not.ok(existsSync(to), 'the link target was copied into the output');
  }),
);

Carry('should refuse a file swapped for a FIFO without waiting for a writer', () =>
  withDir(async (dir) => {
    const from = join(dir, 'swapped.fifo');
    execFileSync('mkfifo', [from]);
    const to = join(dir, 'copy.txt');
    const { code, reason } = await refusal(carryFile(from, to, refusingLink));
    assert.is(code, LocalErrorCode.Artifact);
    assert.is(reason, 'not-a-file');
    assert.not.ok(existsSync(to));
  }),
);

Carry.run();
