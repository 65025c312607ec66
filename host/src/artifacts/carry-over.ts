/**
 * Completing a staged tree with what the old output holds besides the artifacts (Node edge).
 * Publishing keeps the files of the output that the extension did not return: the new tree is
 * the old one with the artifacts added or replaced. Since the new tree replaces the old one in
 * one rename, those files are carried into it first: hard links (the same files, not copies,
 * in time and space linear only in their number), copies where a file system refuses links,
 * symbolic links recreated with the same target, directories recreated with their mode.
 *
 * An artifact never replaces a directory or a symbolic link of the output, and never needs as a
 * directory a name that is a file or a link there: those are refused before anything changes.
 */
import { link, lstat, mkdir, readdir, readlink, chmod, symlink, utimes } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { copyRegularFile } from '../files/copy-file.ts';
import { forEachLimited } from './for-each-limited.ts';

/** What the staged tree already holds, as relative `/` paths. */
export interface StagedNames {
  readonly files: ReadonlySet<string>;
  /** Every directory that holds a staged file, at any depth. */
  readonly directories: ReadonlySet<string>;
}

/** Options of {@link carryOver}. */
export interface CarryOverOptions {
  /** The output as the user named it, in messages. */
  outDir: string;
  /** Checked between steps: true stops the walk (the caller discards the staged tree). */
  stopped?: () => boolean;
}

// Entries linked at once: links are cheap; a few in flight hide their latency.
const PARALLEL_LINKS = 16;
// Errors of a link that a copy can stand in for.
const LINK_REFUSED = new Set(['EPERM', 'EXDEV', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EACCES']);

/** The bits of a file's mode a copy keeps: permissions and sticky, never set-user-ID or set-group-ID (as GNU `cp -p` when it cannot keep the owner, and as archives install). */
export const COPIED_MODE_BITS = 0o1777;

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

function conflict(outDir: string, path: string, problem: string): MepError {
  return new MepError(LocalErrorCode.Artifact, `Cannot write the artifact ${JSON.stringify(path)} to ${outDir}: ${problem}. Remove it or choose another --output; nothing was written.`, {
    data: { outDir, path, problem },
  });
}

/**
 * Carries one regular file: a hard link, or a copy with its mode and times where links are
 * refused. The copy opens what is there now as a regular file, without following a link and
 * without blocking: a neighbour who can write the output and swaps the file for a link (to a key
 * elsewhere) or a FIFO between the listing and the copy gets a refusal, not the link's target
 * copied into the output or a publish that waits forever. A copy is a new file of the user
 * running `mep`, whoever owned what it copies: it never takes set-user-ID or set-group-ID bits
 * ({@link COPIED_MODE_BITS}; the kernel refuses a link to another user's file, so a neighbour's
 * set-user-ID program planted in a shared output was copied as a set-user-ID program of the
 * user's). `linkFile` is `link` (a test makes it refuse).
 */
export async function carryFile(from: string, to: string, linkFile: (from: string, to: string) => Promise<void> = link): Promise<void> {
  try {
    await linkFile(from, to);
  } catch (error) {
    const code = errno(error);
    // EEXIST: a staged artifact already has this name (the file system folds case): it replaces the file.
    if (code === 'EEXIST' || code === 'ENOENT') return;
    if (!LINK_REFUSED.has(code ?? '')) throw error;
    const info = await lstat(from);
    const mode = info.mode & COPIED_MODE_BITS;
    await copyRegularFile(from, to, { what: 'the file of the output', maxBytes: Number.MAX_SAFE_INTEGER, noFollow: true, code: LocalErrorCode.Artifact }, mode);
    await chmod(to, mode);
    await utimes(to, info.atime, info.mtime);
  }
}

/** Carries one entry of the old tree that no artifact touches. */
async function carryEntry(entry: Dirent, from: string, to: string, outDir: string, rel: string, dirs: string[]): Promise<void> {
  if (entry.isDirectory()) {
    await mkdir(to).catch((error: unknown) => {
      // A staged directory already has this name (the file system folds case): the two merge.
      if (errno(error) !== 'EEXIST') throw error;
    });
    dirs.push(rel);
  } else if (entry.isFile()) {
    await carryFile(from, to);
  } else if (entry.isSymbolicLink()) {
    await symlink(await readlink(from), to).catch((error: unknown) => {
      // As for files: a staged artifact of the same name (case folded) replaces the link.
      if (errno(error) !== 'EEXIST') throw error;
    });
  } else {
    try {
      await link(from, to);
    } catch {
      throw conflict(outDir, rel, `${rel} is a special file (a socket, FIFO or device) in the output, which mep cannot keep while it replaces the output`);
    }
  }
}

/**
 * Adds to the staged tree `newRoot` everything of the old tree `oldRoot` that the staged names
 * do not replace, and gives every directory its old mode. Throws ERR_ARTIFACT for an artifact
 * that would replace a directory or a link, or needs a file or a link as its directory.
 *
 * @example
 * await carryOver('/work/out', '/work/.mep-staging-out-1a2b3c4d/new', { files, directories }, { outDir: 'out' });
 */
export async function carryOver(oldRoot: string, newRoot: string, staged: StagedNames, options: CarryOverOptions): Promise<void> {
  const { outDir } = options;
  // Relative directory paths still to walk ('' is the root), depth first.
  const pending = [''];
  while (pending.length > 0) {
    if (options.stopped?.()) return;
    const rel = pending.pop() as string;
    const oldDir = rel === '' ? oldRoot : join(oldRoot, rel);
    const newDir = rel === '' ? newRoot : join(newRoot, rel);
    const entries = await readdir(oldDir, { withFileTypes: true });
    const found: string[] = [];
    await forEachLimited(entries, PARALLEL_LINKS, async (entry) => {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const from = join(oldDir, entry.name);
      const to = join(newDir, entry.name);
      if (staged.files.has(child)) {
        if (entry.isDirectory()) throw conflict(outDir, child, `${child} is a directory in the output`);
        return; // replaced by the artifact
      }
      if (staged.directories.has(child)) {
        if (entry.isDirectory()) found.push(child);
        else throw conflict(outDir, child, `${child} is ${entry.isSymbolicLink() ? 'a symbolic link' : 'a file'} in the output, and artifacts need it as a directory`);
        return;
      }
      await carryEntry(entry, from, to, outDir, child, found);
    });
    pending.push(...found);
    await chmod(newDir, (await lstat(oldDir)).mode & 0o7777);
  }
}
