/**
 * Extraction of archive members into an empty staging directory, refusing every member that
 * would land outside it: `..` segments that climb out, absolute paths, drive letters, and
 * symlinks whose target resolves outside (checked against the real, on-disk parent so a link
 * through another link cannot escape). Any refusal throws before the caller installs anything.
 */
import { lstat, mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, posix, resolve, sep } from 'node:path';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import type { ArchiveEntry } from './entry.ts';

function refuse(archive: string, entry: string, why: string): MepError {
  return new MepError(LocalErrorCode.Registry, `Refusing the archive ${archive}: member ${JSON.stringify(entry)} ${why}. Nothing was installed; ask the publisher for a clean archive.`, {
    data: { archive, entry, reason: 'unsafe-entry' },
  });
}

/** The member's path normalized to forward slashes, or a refusal when it leaves the root. */
function safeRelative(path: string, archive: string): string {
  const slashed = path.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) throw refuse(archive, path, 'has an absolute path');
  // Any ".." is refused, even one that would stay inside: the extractor writes the lexical path,
  // and a reader following links on disk could resolve it elsewhere.
  if (slashed.split('/').includes('..')) throw refuse(archive, path, 'contains ".." (it could climb out of the extraction directory)');
  return posix.normalize(slashed).replace(/\/+$/, '');
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/** The real path of the deepest existing ancestor of `path`. */
async function realAncestor(path: string): Promise<string> {
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      return await realpath(dir);
    } catch {
      if (dirname(dir) === dir) return dir;
    }
  }
}

/**
 * Checks every member first (nothing is written when one is unsafe), then writes them under
 * `root`, re-checking each parent's real path before writing.
 *
 * @example
 * await extractEntries(readTarGz(bytes, url), stagingDir, url);
 */
export async function extractEntries(entries: readonly ArchiveEntry[], root: string, archive: string): Promise<void> {
  const planned = entries.map((entry) => {
    const relative = safeRelative(entry.path, archive);
    if (entry.type === 'symlink') {
      const target = (entry.linkTarget ?? '').replace(/\\/g, '/');
      if (target === '' || target.startsWith('/') || /^[A-Za-z]:/.test(target)) throw refuse(archive, entry.path, `is a symlink to the absolute path ${JSON.stringify(entry.linkTarget)}`);
      const lexical = posix.normalize(posix.join(posix.dirname(relative), target));
      if (lexical === '..' || lexical.startsWith('../')) throw refuse(archive, entry.path, `is a symlink pointing outside the package (${JSON.stringify(entry.linkTarget)})`);
    }
    return { entry, relative };
  });

  const realRoot = await realpath(root);
  for (const { entry, relative } of planned) {
    if (relative === '.' || relative === '') continue;
    const target = resolve(realRoot, relative);
    const parent = await realAncestor(dirname(target));
    if (!inside(realRoot, parent)) throw refuse(archive, entry.path, `would be written through a link to ${parent}`);
    const existing = await lstat(target).catch(() => undefined);
    if (existing?.isSymbolicLink()) throw refuse(archive, entry.path, 'would overwrite a symlink');
    if (entry.type === 'directory') {
      await mkdir(target, { recursive: true });
    } else if (entry.type === 'file') {
      await mkdir(dirname(target), { recursive: true });
      // Keep only the execute bits of the stored mode: setuid and world-writable are not carried.
      const mode = entry.mode !== undefined && entry.mode & 0o111 ? 0o755 : 0o644;
      await writeFile(target, entry.data ?? new Uint8Array(), { mode });
    } else {
      await mkdir(dirname(target), { recursive: true });
      const resolved = resolve(await realpath(dirname(target)), entry.linkTarget as string);
      if (!inside(realRoot, resolved)) throw refuse(archive, entry.path, `is a symlink pointing outside the package (${JSON.stringify(entry.linkTarget)})`);
      if (existing) throw refuse(archive, entry.path, 'is a symlink replacing an earlier member');
      await symlink(entry.linkTarget as string, target);
    }
  }
  // The lexical checks cannot see a target that climbs through another link (`a -> .`, then
  // `b -> a/..`); the real path can. A dangling link is refused too: it could only point nowhere.
  for (const { entry, relative } of planned) {
    if (entry.type !== 'symlink') continue;
    const real = await realpath(resolve(realRoot, relative)).catch(() => undefined);
    if (real === undefined) throw refuse(archive, entry.path, `is a symlink to ${JSON.stringify(entry.linkTarget)}, which does not exist in the package`);
    if (!inside(realRoot, real)) throw refuse(archive, entry.path, `is a symlink resolving outside the package (${real})`);
  }
}
