/**
 * The checks every archive member passes before anything is written: a relative path that
 * stays inside (no `..`, no absolute or drive path, no NUL), no two members on one path after
 * normalisation (`./a`, `a//b`, NFC/NFD spellings and case variants all collide, as they do on
 * macOS and Windows), nothing stored under a file or a symlink member, and symlink targets that
 * stay inside lexically. Any refusal throws with `data.reason` `unsafe-entry` or
 * `duplicate-entry`.
 */
import { posix } from 'node:path';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { artifactPathKey } from '../../artifacts/path-set.ts';
import { isWindowsDeviceName } from '../../artifacts/validate.ts';
import type { ArchiveEntry } from './entry.ts';

/** A member that passed, with its normalised relative path. */
export interface PlannedEntry {
  entry: ArchiveEntry;
  /** Forward-slash path relative to the extraction root, normalised, never `.`. */
  relative: string;
}

function refuse(archive: string, entry: string, why: string, reason: 'unsafe-entry' | 'duplicate-entry' = 'unsafe-entry', data: Record<string, unknown> = {}): MepError {
  return new MepError(LocalErrorCode.Registry, `Refusing the archive ${archive}: member ${JSON.stringify(entry)} ${why}. Nothing was installed; ask the publisher for a clean archive.`, {
    data: { archive, entry, reason, ...data },
  });
}

/** Longest path of a package's file (an archive member, a git tree entry): with the scratch and install folders it stays under PATH_MAX. */
export const MAX_MEMBER_PATH = 1024;
/** Longest name of one path segment, in UTF-8 bytes (ext4, APFS, NTFS). */
export const MAX_SEGMENT_BYTES = 255;

/** The member's path normalized to forward slashes, or a refusal when it leaves the root. */
function safeRelative(path: string, archive: string): string {
  if (path.includes('\0')) throw refuse(archive, path, 'has a NUL character in its path');
  const slashed = path.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) throw refuse(archive, path, 'has an absolute path');
  // Any ".." is refused, even one that would stay inside: the extractor writes the lexical path,
  // and a reader following links on disk could resolve it elsewhere.
  if (slashed.split('/').includes('..')) throw refuse(archive, path, 'contains ".." (it could climb out of the extraction directory)');
  const relative = posix.normalize(slashed).replace(/\/+$/, '');
  // What no file system takes ended the install with a raw ENAMETOOLONG (a 6,001-character path).
  if (relative.length > MAX_MEMBER_PATH) throw refuse(archive, path.slice(0, 200), `has a path of ${relative.length} characters (at most ${MAX_MEMBER_PATH})`);
  const long = relative.split('/').find((segment) => Buffer.byteLength(segment) > MAX_SEGMENT_BYTES);
  if (long !== undefined) throw refuse(archive, path, `has a name of ${Buffer.byteLength(long)} bytes (file systems take at most ${MAX_SEGMENT_BYTES})`);
  // Windows opens these as devices, in any folder: extracting `aux.js` writes to the device there.
  const device = relative.split('/').find(isWindowsDeviceName);
  if (device !== undefined) throw refuse(archive, path, `has ${JSON.stringify(device)}, a device name on Windows (extracting it there writes to the device)`);
  return relative;
}

/**
 * The key two paths share when a file system makes them one name: Windows drops a segment's
 * trailing dots and spaces (`extension.json.`), then the artifacts' key (case folding, NFC, the
 * code points HFS+ ignores): the same members are one on every machine, as artifacts are.
 */
function collisionKey(relative: string): string {
  return artifactPathKey(relative.split('/').map((segment) => segment.replace(/[. ]+$/, '') || segment).join('/'));
}

function checkLinkTarget(entry: ArchiveEntry, relative: string, archive: string): void {
  const target = (entry.linkTarget ?? '').replace(/\\/g, '/');
  if (target === '' || target.startsWith('/') || /^[A-Za-z]:/.test(target) || target.includes('\0')) {
    throw refuse(archive, entry.path, `is a symlink to the absolute or empty path ${JSON.stringify(entry.linkTarget)}`);
  }
  const lexical = posix.normalize(posix.join(posix.dirname(relative), target));
  if (lexical === '..' || lexical.startsWith('../')) throw refuse(archive, entry.path, `is a symlink pointing outside the package (${JSON.stringify(entry.linkTarget)})`);
}

/**
 * Checks `entries` (in archive order) and returns the members to write, keyed by their index
 * in `entries`; the root itself (`./`) and repeated directories are left out.
 *
 * @example
 * const plan = planEntries(entries, url); // throws for a second extension.json
 */
export function planEntries(entries: readonly ArchiveEntry[], archive: string): Map<number, PlannedEntry> {
  const plan = new Map<number, PlannedEntry>();
  const byKey = new Map<string, PlannedEntry>();
  entries.forEach((entry, index) => {
    const relative = safeRelative(entry.path, archive);
    if (relative === '.' || relative === '') {
      if (entry.type === 'directory') return;
      throw refuse(archive, entry.path, 'names the archive root itself');
    }
    if (entry.type === 'symlink') checkLinkTarget(entry, relative, archive);
    const key = collisionKey(relative);
    const earlier = byKey.get(key);
    if (earlier !== undefined) {
      if (earlier.entry.type === 'directory' && entry.type === 'directory') return;
      const same = earlier.entry.path === entry.path ? 'is stored twice' : `lands on the same path as member ${JSON.stringify(earlier.entry.path)}`;
      throw refuse(archive, entry.path, `${same} (only one could be installed, silently)`, 'duplicate-entry', { other: earlier.entry.path });
    }
    const planned = { entry, relative };
    byKey.set(key, planned);
    plan.set(index, planned);
  });
  // Only directories may hold members: a member under a file cannot be written, and one under
  // a symlink would be written wherever the link points.
  for (const { entry, relative } of plan.values()) {
    const parts = relative.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = byKey.get(collisionKey(parts.slice(0, i).join('/')));
      if (parent !== undefined && parent.entry.type !== 'directory') {
        throw refuse(archive, entry.path, `is stored under the ${parent.entry.type} member ${JSON.stringify(parent.entry.path)}`);
      }
    }
  }
  return plan;
}
