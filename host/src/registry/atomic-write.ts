/** Whole-file replacement that readers never see half-done: write a temp file, then rename. */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { jsonLineChunks } from '../framing/json-chunks.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { noSpaceErrno, noSpaceWords } from '../files/no-space.ts';

/**
 * Removes the temporary files of earlier writes to `path` by processes that are gone (killed
 * between writing and renaming), so that no run leaves them behind for good.
 */
async function removeStaleTemps(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return; // nothing to clean where nothing can be read; the write reports its own failure
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) && name.endsWith('.tmp') ? /^(\d+)\.[0-9a-f]{8}$/.exec(name.slice(prefix.length, -4))?.[1] : undefined;
    if (pid === undefined || Number(pid) === process.pid) continue;
    let gone = false;
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      gone = (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
    if (gone) await rm(join(dirname(path), name), { force: true });
  }
}

/**
 * Writes `data` to `path` atomically: the bytes go to a temporary file beside it, which is then
 * renamed over `path` (a rename within one directory is atomic on POSIX and NTFS). The temporary
 * file is made new (`wx`): never written through a link or over a file planted at its name.
 * Temporary files that killed writers left beside `path` are removed first.
 *
 * @example
 * await writeFileAtomic('.mep/extensions.lock', JSON.stringify(lock, null, 2) + '\n');
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await replaceAtomically(path, (temp) => writeFile(temp, data, { flag: 'wx' }));
}

/**
 * Writes `value` as indented JSON to `path` atomically, streamed in chunks
 * (framing/json-chunks.ts): no size or shape of the value (an IR an extension returned) makes it
 * one string, so nothing can fail it after it started but the disk.
 *
 * @example
 * await writeJsonAtomic('morphir-ir.json', result.ir);
 */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await replaceAtomically(path, (temp) => writeFile(temp, jsonLineChunks(value, { indent: 2 }), { flag: 'wx' }));
}

/** Fresh temporary names tried before a write gives up on a directory where something takes each first. */
const TEMP_NAME_TRIES = 8;

/**
 * Runs `write(temp)` to make a temporary file beside `path`, then renames it over `path`; on any
 * failure the temporary file is removed and `path` is untouched. `write` must create `temp` new
 * (`wx`): when something already holds the name (a link or file a neighbour planted), it is left
 * as it is, never written through nor removed, and another random name is drawn.
 *
 * @example
 * await replaceAtomically('pkg.tgz', (temp) => writeTarGz(temp, members));
 */
export async function replaceAtomically(path: string, write: (temp: string) => Promise<void>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await removeStaleTemps(path);
  for (let attempt = 1; ; attempt++) {
    const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await write(temp);
      await rename(temp, path);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && (error as NodeJS.ErrnoException).path === temp) {
        // Not ours: whatever holds the name stays; the write has not started.
        if (attempt < TEMP_NAME_TRIES) continue;
        throw new MepError(LocalErrorCode.Usage, `Cannot write ${path}: ${TEMP_NAME_TRIES} fresh temporary names beside it were already taken by files this run did not create. Check who writes into ${dirname(path)}.`, {
          data: { path, reason: 'temp-taken' },
          cause: error,
        });
      }
      await rm(temp, { force: true });
      const code = noSpaceErrno(error);
      if (code === undefined) throw error;
      throw new MepError(LocalErrorCode.Usage, `Cannot write ${path}: ${noSpaceWords(code)} (${code}); it was left as it was, and the partial copy beside it removed. Free space in ${dirname(path)} (or raise the limit), then run the command again.`, {
        data: { path, reason: 'no-space', errno: code },
        cause: error,
      });
    }
  }
}
