/**
 * Whether a file or folder is this user's and closed to others, for what `mep` reads back that it
 * wrote itself (a code cache, a shape verdict, its temporary folders): another user's file, or one
 * another user can write (or, in a folder, rename files in), is not trusted.
 */
import type { Stats } from 'node:fs';

const uid = process.getuid?.();

/**
 * Whether `info` is owned by this user (where users exist) and has none of the `closed` mode bits
 * (default: writable by group or others; where modes exist).
 */
export function isOwnAndClosed(info: Stats, closed = 0o022): boolean {
  return (uid === undefined || info.uid === uid) && (process.platform === 'win32' || (info.mode & closed) === 0);
}
