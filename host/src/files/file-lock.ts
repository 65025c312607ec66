/**
 * A lock file that serialises read-modify-write of one file across processes (two `mep trust`
 * at once must not lose an entry): `<file>.lock` is created exclusively (`O_CREAT|O_EXCL`, never
 * through a link) holding the owner's pid, and removed when the change is done. A lock whose
 * pid is gone (a killed mep), or that is older than any change holds it (a reused pid, a lock a
 * cloned project ships), is stale: it is moved aside under a name of its own, read again
 * there, and removed only when it is still stale (else it is put back), so two waiters
 * that find the same stale lock never remove each other's fresh one. A live holder is waited
 * for up to `waitMs`, then refused with a typed error naming the lock and its pid. Node edge.
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, open, rename, rm } from 'node:fs/promises';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { readRegularFile } from './regular-file.ts';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** What the lock guards, for the message (`the trust record`). */
  what: string;
  /** How long to wait for a live holder. Default 10 s (a change takes milliseconds). */
  waitMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * The pid a lock file names, or undefined when it names none (being written, or junk). Read as
 * a regular file of at most `HOST_FILE_LIMITS.lockFileBytes`, never through a link: a cloned
 * project's lock of 1.5 GB was read whole on every turn of the wait (1.17 GB RSS).
 */
async function holderOf(path: string): Promise<number | undefined> {
  const bytes = await readRegularFile(path, { what: 'the lock file', maxBytes: HOST_FILE_LIMITS.lockFileBytes, noFollow: true }).catch(() => undefined);
  const text = bytes?.toString('utf8');
  const pid = text === undefined ? undefined : /^(\d{1,10})\n$/.exec(text)?.[1];
  return pid === undefined ? undefined : Number(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * A lock older (or newer: an archive can date a file in the future) than any holder keeps it: a
 * change takes milliseconds, and waits at most 10 s for the trust record's lock inside it. Past
 * this, a lock naming a live pid is not a mep's (a reused pid, or a file a cloned project ships
 * naming pid 1) and is taken over.
 */
const ABANDONED_MS = 60_000;

/** True when the lock at `path` is stale: its pid is gone, or its age is past {@link ABANDONED_MS}. */
async function isStale(path: string): Promise<boolean> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return false;
  if (Math.abs(Date.now() - stats.mtimeMs) > ABANDONED_MS) return true;
  const pid = await holderOf(path);
  return pid !== undefined && !isAlive(pid);
}

/** Removes the lock at `path` when it is stale ({@link isStale}); true when it did (or the lock was gone). */
async function removeStale(path: string): Promise<boolean> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch {
    return true; // gone already: try to take it again
  }
  if (!(await isStale(aside))) {
    // Someone's fresh lock after all (or one still being written): put it back, unless a new one is there.
    await link(aside, path).catch(() => undefined);
    await rm(aside, { force: true });
    return false;
  }
  await rm(aside, { force: true });
  return true;
}

/**
 * Refuses (MepError ERR_USAGE, `reason: 'not-a-lock'`) a lock path that holds what no mep makes
 * there: a symbolic link, anything but a regular file, or a file larger than a pid and a line
 * feed (a cloned project can ship one, naming pid 1 through a link to a file elsewhere, to hold
 * every write off, or one of gigabytes to be read on every turn of the wait).
 */
async function refuseForeignLock(lockPath: string, options: FileLockOptions): Promise<void> {
  const info = await lstat(lockPath).catch(() => undefined);
  if (info === undefined || (info.isFile() && info.size <= HOST_FILE_LIMITS.lockFileBytes)) return;
  const what = info.isSymbolicLink() ? 'a symbolic link' : info.isFile() ? `a file of ${info.size} bytes (a lock mep makes holds its pid, at most ${HOST_FILE_LIMITS.lockFileBytes} bytes)` : 'not a regular file';
  throw new MepError(
    LocalErrorCode.Usage,
    `Cannot change ${options.what}: ${lockPath} is ${what}, not a lock file mep makes. Remove it, then run the command again.`,
    { data: { lock: lockPath, reason: 'not-a-lock' } },
  );
}

/**
 * Runs `change` while holding `lockPath`, released afterwards whatever `change` does. Throws
 * MepError(ERR_USAGE, `reason: 'locked'`) when another live process holds it past `waitMs`.
 *
 * @example
 * await withFileLock(`${file}.lock`, async () => write(change(await read())), { what: 'the trust record' });
 */
export async function withFileLock<T>(lockPath: string, change: () => Promise<T>, options: FileLockOptions): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await refuseForeignLock(lockPath, options);
    if ((await isStale(lockPath)) && (await removeStale(lockPath))) continue;
    if (Date.now() >= deadline) {
      // Read for the refusal only: isStale has read it already on every turn of the wait.
      const pid = await holderOf(lockPath);
      throw new MepError(
        LocalErrorCode.Usage,
        `Cannot change ${options.what}: ${lockPath} is held by process ${pid ?? '(unknown)'}, another mep changing it, for longer than ${options.waitMs ?? 10_000} ms. Try again once it is done; if no mep is running, remove ${lockPath}.`,
        { data: { lock: lockPath, pid, reason: 'locked' } },
      );
    }
    await sleep(Math.min(5 + attempt * 5, 50) + Math.random() * 10);
  }
  try {
    return await change();
  } finally {
    await rm(lockPath, { force: true });
  }
}
