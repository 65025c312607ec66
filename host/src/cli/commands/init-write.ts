/**
 * How `mep init` writes a new project: all of it or nothing, and never through a link. The files
 * are written into a fresh staging folder (`mkdtemp`, so nothing planted is there to follow),
 * then moved into place by rename: the staging folder becomes `<dir>` when `<dir>` is absent;
 * when `<dir>` is an empty folder (perhaps the working directory) the staging folder is made
 * inside it and its entries are moved up. A `<dir>` that is a link, a file, a FIFO or a device,
 * or a folder that is not empty, is refused before anything is written; anything that fails
 * later removes what was written.
 */
import { lstat, mkdir, mkdtemp, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';

const STAGING_PREFIX = '.mep-init-';

function refused(dir: string, why: string, reason: string, cause?: unknown): MepError {
  return new MepError(LocalErrorCode.Usage, `${dir} ${why}; choose a new directory (nothing was written).`, { data: { path: dir, reason }, ...(cause === undefined ? {} : { cause }) });
}

/** What is at `dir`: nothing, or an empty real folder; anything else is refused (ERR_USAGE, `data.reason`). */
async function checkTarget(dir: string): Promise<'absent' | 'empty'> {
  const found = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw refused(dir, `cannot be looked at (${error.code ?? error.message})`, 'unreadable', error);
  });
  if (found === undefined) return 'absent';
  if (found.isSymbolicLink()) throw refused(dir, 'is a symbolic link, and mep init writes only into a real folder of its own, never through a link', 'link');
  if (!found.isDirectory()) throw refused(dir, 'exists and is not a folder', 'not-a-folder');
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    throw refused(dir, `cannot be listed (${error.code ?? error.message})`, 'unreadable', error);
  });
  if (entries.length > 0) throw refused(dir, 'is not empty', 'not-empty');
  return 'empty';
}

/** Writes `files` (relative paths → text) as the new folder `dir`; see the file's comment. */
export async function writeNewFolder(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  const target = await checkTarget(dir);
  let staging: string;
  try {
    if (target === 'absent') await mkdir(dirname(dir), { recursive: true });
    staging = await mkdtemp(join(target === 'absent' ? dirname(dir) : dir, STAGING_PREFIX));
  } catch (error) {
    // A parent that is a file, or a folder that cannot be written: nothing was made.
    throw refused(dir, `cannot be made (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'write-failed', error);
  }
  const moved: string[] = [];
  try {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(staging, path, '..'), { recursive: true });
      await writeFile(join(staging, path), content, { flag: 'wx' });
    }
    if (target === 'absent') {
      // Fails (EEXIST, ENOTEMPTY, ENOTDIR) when something took the name meanwhile, and replaces no link's target.
      await rename(staging, dir);
      return;
    }
    const now = await readdir(dir);
    if (now.length !== 1 || now[0] !== basename(staging)) throw refused(dir, `was written to by another program meanwhile (${now.filter((n) => n !== basename(staging)).slice(0, 3).join(', ')})`, 'not-empty');
    for (const entry of await readdir(staging)) {
      await rename(join(staging, entry), join(dir, entry));
      moved.push(entry);
    }
    await rmdir(staging);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    for (const entry of moved) await rm(join(dir, entry), { recursive: true, force: true });
    if (error instanceof MepError) throw error;
    throw refused(dir, `could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'write-failed', error);
  }
}
