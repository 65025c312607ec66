/**
 * Keeping the old output's file where an artifact has exactly its bytes (Node edge).
 *
 * A regenerate mostly returns what the output already holds. Such a file is hard-linked from the
 * old tree into the staged one instead of written anew: it keeps its inode and its modification
 * time, so build tools that watch the output (Gradle's or Maven's Avro plugins) see no change,
 * and no inode is created, nor freed when the old tree is removed after the swap. On ext4
 * without a journal every create scans past each inode freed in the last minute of its block
 * group, so a regenerate's 2,000 new files and the old tree's 2,000 freed inodes tax the next
 * run (docs/performance-log.md, 2026-12-05).
 *
 * Only a file that is plainly the output's own is kept: reached through real directories of the
 * old output (a symbolic link on the way is never followed), itself a regular file (opened
 * without following a link and without blocking, so a FIFO never hangs the run), linked nowhere
 * else (a file the user hard-linked elsewhere is never shared with the new output), owned by
 * the user running mep, and of exactly the new bytes. Anything else, and any error on the way,
 * leaves the artifact to be written as a new file.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { link, lstat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Opens the old file as it is now: never through a link at its name, never waiting for a FIFO's writer, never taking a terminal. */
const OPEN_OLD = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

/** The user running mep, asked once (a system call each time: 10 ms of 2,000 files' main thread). */
const USER = process.getuid?.();

/** The old file's bytes, read to compare; grown to the largest file compared (synchronous use only). */
let oldBytes = Buffer.allocUnsafeSlow(1 << 16);

/**
 * Finds, in the old output `root`, the file an artifact at relative `/` path `rel` would
 * replace: its path when every directory on the way is a real directory (looked at once per
 * directory for the life of the returned function), else undefined. Looks at nothing (resolves
 * undefined) where files cannot be checked for ownership (no `process.getuid`: {@link USER}).
 *
 * @example
 * const oldFileOf = oldOutputFiles('/work/out');
 * await oldFileOf('schemas/a.avsc'); // '/work/out/schemas/a.avsc', or undefined
 */
export function oldOutputFiles(root: string): (rel: string) => Promise<string | undefined> {
  if (USER === undefined) return () => Promise.resolve(undefined);
  const directories = new Map<string, Promise<boolean>>();
  const realDirectory = (rel: string): Promise<boolean> => {
    let known = directories.get(rel);
    if (known === undefined) {
      const slash = rel.lastIndexOf('/');
      const above = rel === '' ? Promise.resolve(true) : realDirectory(slash < 0 ? '' : rel.slice(0, slash));
      const path = rel === '' ? root : join(root, ...rel.split('/'));
      known = above.then((ok) => ok && lstat(path).then((info) => info.isDirectory(), () => false));
      directories.set(rel, known);
    }
    return known;
  };
  return async (rel) => {
    const slash = rel.lastIndexOf('/');
    return (await realDirectory(slash < 0 ? '' : rel.slice(0, slash))) ? join(root, ...rel.split('/')) : undefined;
  };
}

/**
 * Opens `path` when it holds exactly `bytes[0, length)` and may be kept: a regular file, one
 * link, owned by this process's user. Synchronous (the caller's `bytes` is a shared buffer).
 * Returns the open descriptor and its identity, or undefined (nothing left open).
 */
function openSame(path: string, bytes: Buffer, length: number): { fd: number; info: Stats } | undefined {
  // Looked at by name first: a device, FIFO or socket is never opened (opening a device can act:
  // a tape rewinds, a watchdog starts), and a file of another size costs no open.
  let named: Stats;
  try {
    named = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!keepable(named, length)) return undefined;
  let fd: number;
  try {
    fd = openSync(path, OPEN_OLD);
  } catch {
    return undefined;
  }
  let kept = false;
  try {
    // The name may have been given to another file since the lstat: the one opened must be the one looked at.
    const info = fstatSync(fd);
    kept = info.dev === named.dev && info.ino === named.ino && keepable(info, length) && holds(fd, bytes, length);
    return kept ? { fd, info } : undefined;
  } catch {
    return undefined;
  } finally {
    if (!kept) closeSync(fd);
  }
}

/** Whether `info` is a file mep may keep for `length` new bytes: regular, one link, this user's, that size. */
const keepable = (info: Stats, length: number): boolean => info.isFile() && info.nlink === 1 && info.uid === USER && info.size === length;

/** Whether the file open at `fd` (of `length` bytes, as fstat said) reads exactly `bytes[0, length)`. */
function holds(fd: number, bytes: Buffer, length: number): boolean {
  if (oldBytes.length < length) oldBytes = Buffer.allocUnsafeSlow(Math.max(length, oldBytes.length * 2));
  let read = 0;
  for (let got = 1; read < length && got > 0; read += got) got = readSync(fd, oldBytes, read, length - read, read);
  return read === length && oldBytes.compare(bytes, 0, length, 0, length) === 0;
}

/** Whether `path` is now the very file `info` describes (same device and inode; never throws). */
function isFile(path: string, info: Stats): boolean {
  try {
    const now = lstatSync(path);
    return now.dev === info.dev && now.ino === info.ino;
  } catch {
    return false;
  }
}

/**
 * Hard-links the old file `from` to the staged name `to` when it holds exactly `bytes[0,
 * length)` (see the conditions above), the link made through `serialize` (the stager's one
 * create at a time per directory). Resolves true when `to` is that very file; false, with `to`
 * left absent, when the artifact must be written: not the same bytes, not keepable, the old name
 * swapped for another file meanwhile (the staged link's identity is checked against the file
 * compared), or any error (EXDEV, EPERM, EMLINK, ENOENT, …). Reads `bytes` before it yields.
 *
 * @example
 * if (!(await keepUnchanged(oldPath, stagedPath, encoded, length, createSerially))) await write();
 */
export async function keepUnchanged(from: string, to: string, bytes: Buffer, length: number, serialize: (path: string, create: () => Promise<void>) => Promise<void>): Promise<boolean> {
  const same = openSame(from, bytes, length);
  if (same === undefined) return false;
  // The descriptor stays open until the check: the compared inode cannot be freed and its number reused.
  try {
    try {
      await serialize(to, () => link(from, to));
    } catch {
      return false;
    }
    if (isFile(to, same.info)) return true;
    await unlink(to).catch(() => undefined);
    return false;
  } finally {
    closeSync(same.fd);
  }
}
