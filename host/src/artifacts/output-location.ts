/**
 * Where an output directory really is, and whether it can be published to at all, decided
 * before an extension runs (Node edge). Publishing replaces the directory as a whole (see
 * staged-output.ts): the complete new tree is built beside it and renamed into its place. So
 * the output must be a directory or not exist yet, its parent must take new entries, and it
 * must be something a rename can replace: not a mount point, not the file system root, and not
 * a directory that holds the current working directory.
 */
import { constants } from 'node:fs';
import { access, lstat, mkdir, readlink, realpath, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** A checked output directory. */
export interface OutputLocation {
  /** The output as the caller named it, made absolute. */
  readonly requested: string;
  /** The directory the output is, with symbolic links resolved: what is replaced. */
  readonly path: string;
  /** Its parent directory (real path), which holds the staging tree and the journal. */
  readonly parent: string;
  /** Its name in `parent`. */
  readonly name: string;
  /** Missing directories created above the output, deepest last; removed again on abort. */
  readonly created: readonly string[];
}

/** Options of {@link locateOutput}. */
export interface LocateOptions {
  /** The caller's working directory: an output that contains it is refused. Default `process.cwd()`. */
  cwd?: string;
}

/** Options of {@link locateOutput} for callers that only look. */
interface LookOptions extends LocateOptions {
  /** False: when the output's parent does not exist, resolve undefined instead of creating it. */
  createParents: false;
}

function unusable(requested: string, problem: string, advice: string, data: Record<string, unknown> = {}): MepError {
  return new MepError(LocalErrorCode.Usage, `Cannot write artifacts to ${requested}: ${problem}. ${advice}`, { data: { outDir: requested, problem, ...data } });
}

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Creates `dir` and its missing parents, returning those it created, outermost first. */
async function makeParents(dir: string, requested: string): Promise<string[]> {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    try {
      const info = await stat(at);
      if (!info.isDirectory()) throw unusable(requested, `${at} is not a directory`, 'Choose an output inside a directory.');
      break;
    } catch (error) {
      if (errno(error) !== 'ENOENT') throw error instanceof MepError ? error : unusable(requested, `${at} cannot be read (${errno(error) ?? String(error)})`, 'Choose another --output.');
      missing.unshift(at);
      if (dirname(at) === at) break;
    }
  }
  for (const at of missing) await mkdir(at);
  return missing;
}

/**
 * Checks `outDir` and returns where it really is, creating missing parent directories (which
 * {@link forgetCreatedParents} removes again when nothing was published). Throws ERR_USAGE,
 * naming the problem and what to do, when the output is a file, a looping symbolic link, not
 * writable, a mount point, the root, or holds the working directory. A link to a directory that
 * does not exist stands for its target.
 */
export async function locateOutput(outDir: string, options?: LocateOptions): Promise<OutputLocation>;
export async function locateOutput(outDir: string, options: LookOptions): Promise<OutputLocation | undefined>;
export async function locateOutput(outDir: string, options: LocateOptions & { createParents?: boolean } = {}): Promise<OutputLocation | undefined> {
  return locate(outDir, options, 0);
}

/**
 * Refuses (ERR_USAGE, `reason: 'foreign-link'`) a path of the output that goes through a symbolic
 * link the kernel's `protected_symlinks` would not follow: a link in a sticky, world-writable
 * folder (`/tmp`) owned neither by this user nor by the folder's owner. The output is located by
 * its real path (`realpath` reads links without following them, so that protection never
 * applies): `mep generate -o /tmp/gen`, with another user's `/tmp/gen -> ~victim/project/src`
 * planted before, published the artifacts into the victim's folder, replacing its files of the
 * same names. No such rule where there are no user ids (Windows).
 */
async function refuseForeignLinks(requested: string): Promise<void> {
  const uid = process.geteuid?.();
  if (uid === undefined) return;
  const parts = requested.split(sep).filter(Boolean);
  let at = parse(requested).root;
  for (const part of parts) {
    const folder = at;
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (info === undefined) return; // missing from here on: nothing to follow
    if (!info.isSymbolicLink() || info.uid === uid) continue;
    const holder = await stat(folder).catch(() => undefined);
    if (holder === undefined || (holder.mode & 0o1002) !== 0o1002 || info.uid === holder.uid) continue;
    throw unusable(
      requested,
      `${at} is a symbolic link another user (uid ${info.uid}) made in the shared folder ${folder}, which anyone may write`,
      `Anyone can plant such a link to send your files elsewhere (the kernel's protected_symlinks refuses to follow it too); remove it, or choose an output of your own, such as one under your home folder.`,
      { reason: 'foreign-link', link: at, owner: info.uid },
    );
  }
}

async function locate(outDir: string, options: LocateOptions & { createParents?: boolean }, linkDepth: number): Promise<OutputLocation | undefined> {
  const requested = resolve(outDir);
  await refuseForeignLinks(requested);
  let path: string;
  let created: string[] = [];
  let info;
  try {
    info = await lstat(requested);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw unusable(requested, `it cannot be read (${errno(error) ?? String(error)})`, 'Choose another --output.');
  }
  if (info === undefined) {
    if (options.createParents === false && !(await isDirectory(dirname(requested)))) return undefined;
    created = await makeParents(dirname(requested), requested);
    path = join(await realpath(dirname(requested)), basename(requested));
  } else {
    try {
      path = await realpath(requested);
    } catch (error) {
      const code = errno(error);
      // A link to a directory that does not exist (yet, or any more: a swap interrupted between
      // its renames) names where the output goes: locate its target instead.
      if (code === 'ENOENT' && info.isSymbolicLink() && linkDepth < 32) return locate(resolve(dirname(requested), await readlink(requested)), options, linkDepth + 1);
      const problem = code === 'ELOOP' ? 'it is a symbolic link in a loop' : `it cannot be resolved (${code ?? String(error)})`;
      throw unusable(requested, problem, 'Remove the link or choose another --output.');
    }
    const target = await stat(path);
    if (!target.isDirectory()) throw unusable(requested, info.isSymbolicLink() ? `it is a symbolic link to ${path}, which is not a directory` : 'it is a file, not a directory', 'Choose a directory (it is created when missing).');
  }
  const parent = dirname(path);
  if (parent === path) throw unusable(requested, 'it is the root of the file system', 'Choose a directory below it.');
  const cwd = await realpath(resolve(options.cwd ?? process.cwd())).catch(
    // A working directory that was removed contains nothing: its name is compared as it is.
    () => resolve(options.cwd ?? process.cwd()),
  );
  const fromOutput = relative(path, cwd);
  if (fromOutput === '' || (!fromOutput.startsWith(`..${sep}`) && fromOutput !== '..' && !isAbsolute(fromOutput))) {
    throw unusable(requested, `it contains the working directory ${cwd}`, 'The output is replaced as a whole when it is written, which would leave the working directory removed; choose a directory below it, such as --output generated.');
  }
  if (info !== undefined) {
    const [own, above] = await Promise.all([stat(path), stat(parent)]);
    if (own.dev !== above.dev) throw unusable(requested, 'it is a mount point', 'The output is replaced by a rename, which cannot replace a mount point; choose a directory inside it.');
    try {
      // Moving a directory to another parent updates its "..": it needs write access itself.
      await access(path, constants.W_OK);
    } catch {
      throw unusable(requested, 'it is not writable', 'Make it writable or choose another --output.');
    }
  }
  try {
    await access(parent, constants.W_OK | constants.X_OK);
  } catch {
    throw unusable(requested, `its parent ${parent} is not writable`, 'The new tree is built beside the output and renamed into its place; make the parent writable or choose another --output.', { parent });
  }
  return { requested, path, parent, name: basename(path), created };
}

/**
 * Removes the directories {@link locateOutput} created above an output that was never
 * published, deepest first, as far as they are still empty.
 */
export async function forgetCreatedParents(location: OutputLocation): Promise<void> {
  for (const dir of [...location.created].reverse()) {
    try {
      await rmdir(dir);
    } catch {
      // Not empty (something else put a file there) or already gone: it stays, or is gone.
      return;
    }
  }
}
