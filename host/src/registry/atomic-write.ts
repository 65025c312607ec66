/** Whole-file replacement that readers never see half-done: write a temp file, then rename. */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` atomically: the bytes go to a temporary file beside it, which is then
 * renamed over `path` (a rename within one directory is atomic on POSIX and NTFS).
 *
 * @example
 * await writeFileAtomic('.mep/extensions.lock', JSON.stringify(lock, null, 2) + '\n');
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await replaceAtomically(path, (temp) => writeFile(temp, data));
}

/**
 * Runs `write(temp)` to make a temporary file beside `path`, then renames it over `path`; on any
 * failure the temporary file is removed and `path` is untouched.
 *
 * @example
 * await replaceAtomically('pkg.tgz', (temp) => writeTarGz(temp, members));
 */
export async function replaceAtomically(path: string, write: (temp: string) => Promise<void>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await write(temp);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
