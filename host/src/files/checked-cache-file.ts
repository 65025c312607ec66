/**
 * Cache files that `mep` writes for itself and reads back as code (V8's bytecode cache of the
 * command, cli/code-cache.ts; V8's compiled wasm code, transport/wasm/node/compiled-code-cache.ts):
 * read only from a regular file (not a link, not a FIFO: opened non-blocking) of this user's that
 * no one else can write, in a folder of this user's no one else can write, at most a stated size,
 * whose own sha256 (written in front of it, over its file name and its body, so that a cache renamed
 * to another's name fails it) matches. V8 checks only a header of what it reads (its version, its
 * flags), not the body. Written whole under a fresh name, then renamed over, in a folder made mode
 * 0700; a write that fails leaves no partial file; a temporary file a killed writer left is removed
 * by the next writer once stale; the oldest caches of other names are dropped.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isOwnAndClosed } from './own-file.ts';

/** What a kind of cache file is. */
export interface CheckedCacheFormat {
  /** In front of every file: this, then the sha256 of the rest. */
  magic: Buffer;
  /** The largest file read. */
  maxBytes: number;
  /** The files' name ending (`.v8c`): only these are dropped when old. */
  extension: string;
  /** Files of other groups kept beside the one written (the newest of them). */
  keepOthers: number;
  /** The part of a file's name its group is known by (default: the whole name). */
  groupOf?: (name: string) => string;
}

/** A temporary file untouched this long is a killed writer's. */
const STALE_WRITE_MS = 10 * 60 * 1000;

/** The checksum in front of the cache `path`: over its name and its body. */
const checksum = (path: string, body: Uint8Array): Buffer => createHash('sha256').update(basename(path)).update('\0').update(body).digest();

/** Whether `dir` is a folder of this user's that no one else can write (else its files can be renamed). */
export function ownFolder(dir: string): boolean {
  const info = lstatSync(dir, { throwIfNoEntry: false });
  return info !== undefined && info.isDirectory() && isOwnAndClosed(info);
}

/** The cache's body, `miss` when there is none, or `refused` when there is one this does not trust. */
export function readCheckedCache(path: string, format: CheckedCacheFormat): Buffer | 'miss' | 'refused' {
  const header = format.magic.length + 32;
  try {
    if (!ownFolder(dirname(path))) return lstatSync(dirname(path), { throwIfNoEntry: false }) === undefined ? 'miss' : 'refused';
  } catch {
    return 'refused';
  }
  let fd: number;
  try {
    // Non-blocking: a FIFO swapped in is opened without a writer and refused by its fstat, never waited on.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'miss' : 'refused';
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size <= header || info.size > format.maxBytes) return 'refused';
    if (!isOwnAndClosed(info)) return 'refused';
    const bytes = Buffer.allocUnsafe(info.size);
    let read = 0;
    for (let n = 1; n > 0 && read < bytes.length; read += n) n = readSync(fd, bytes, read, bytes.length - read, read);
    if (read !== info.size || !bytes.subarray(0, format.magic.length).equals(format.magic)) return 'refused';
    const body = bytes.subarray(header);
    return checksum(path, body).equals(bytes.subarray(format.magic.length, header)) ? body : 'refused';
  } catch {
    return 'refused';
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `data` as `path`'s cache whole (fresh name, then renamed over) and drops the oldest caches
 * of other groups. Throws when it could not (the folder not this user's, a full disk).
 */
export function writeCheckedCache(path: string, data: Uint8Array, format: CheckedCacheFormat): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!ownFolder(dir)) throw new Error(`${dir} is not a folder of this user's closed to others`);
  const temporary = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, Buffer.concat([format.magic, checksum(path, data), data]), { flag: 'wx', mode: 0o600 });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  const groupOf = format.groupOf ?? ((name: string) => name);
  const names = readdirSync(dir);
  const mtimeOf = (name: string): number => statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const others = names.filter((name) => name.endsWith(format.extension) && groupOf(name) !== groupOf(basename(path)));
  const aged = others.map((name) => ({ name, mtime: mtimeOf(name) })).sort((a, b) => b.mtime - a.mtime);
  for (const { name } of aged.slice(format.keepOthers)) rmSync(join(dir, name), { force: true });
  // What a writer killed mid-write left (a write takes milliseconds: one untouched for 10 minutes is no writer's at work).
  for (const name of names) if (name.endsWith('.tmp') && mtimeOf(name) < Date.now() - STALE_WRITE_MS) rmSync(join(dir, name), { force: true });
}
