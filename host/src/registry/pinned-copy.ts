/**
 * Where an installed process extension runs from: a private copy of its whole package (the
 * entry, the manifest and every file the lock's `files` pins), each file made from the very
 * bytes that were hashed against the lock as they were copied, so that nothing done to the
 * package after the check (the entry renamed over, a module it imports later or a file it reads
 * rewritten in place) changes what runs or what it reads. The process's working directory is
 * the copy's package directory. The copies live in one directory of this process
 * (`$TMPDIR/mep-run-<pid>-XXXXXX`, mode 0700), one per verified pin, files read-only, reused by
 * later sessions while every copied file is unchanged (its inode, size and times as made),
 * removed when the process exits, and removed by the next `mep` when a killed one left them.
 * Node edge.
 */
import { lstatSync } from 'node:fs';
import { chmod, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { copyRegularFile } from '../files/copy-file.ts';
import { makeProcessTemp } from '../files/process-temp.ts';
import { readJsonFile } from '../files/json-file.ts';
import { mismatch } from './integrity.ts';
import type { ArtifactPin } from './integrity.ts';

const PREFIX = 'mep-run-';

/** What {@link pinnedCopy} copies: an installed package and the hash of each of its files. */
export interface PackagePin {
  /** The extension id, for messages. */
  extension: string;
  /** The installed package directory. */
  dir: string;
  /** The lock that pins it, for messages. */
  lock: string;
  /** Package path (forward slashes) → pinned sha256 of every file to copy: entry, manifest, `files`. */
  files: Readonly<Record<string, string>>;
  /** Package path of the entry (what the copy returns the path of). */
  entry: string;
}

/** A made copy: where its package directory and entry are. */
export interface PinnedCopy {
  /** The copy's package directory (the process's working directory). */
  dir: string;
  /** The copied entry. */
  entry: string;
}

/** The identity of a copied file as made: any write to it, a chmod or a replacement changes one of these. */
interface Made extends PinnedCopy {
  identities: ReadonlyMap<string, string>;
}

const made = new Map<string, Made>();
let copies = 0;
let privateDir: string | undefined;

const identityOf = (info: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number; mode: number }): string =>
  [info.dev, info.ino, info.size, info.mtimeMs, info.ctimeMs, info.mode].join(':');

/** This process's run directory, made on first use and removed at exit. */
function runDirectory(): string {
  privateDir ??= makeProcessTemp(PREFIX).dir;
  return privateDir;
}

/**
 * How Node.js loads a `.js` file of the package that has no `package.json` of its own above it:
 * the `type` of the nearest `package.json` above the package directory (none: Node.js decides by
 * the syntax). The copy gets the same, in a `package.json` just above its package directory.
 */
async function moduleTypeAbove(dir: string): Promise<string | undefined> {
  for (let at = dirname(dir); ; at = dirname(at)) {
    const doc = await readJsonFile(join(at, 'package.json'), { what: 'the package.json', maxBytes: HOST_FILE_LIMITS.smallFileBytes, keys: 'data' }).catch(() => undefined);
    if (doc !== undefined) return typeof doc === 'object' && doc !== null && (doc as { type?: unknown }).type === 'module' ? 'module' : 'commonjs';
    if (dirname(at) === at) return undefined;
  }
}

/**
 * Whether every file of `copy` is still as it was made. Synchronous on purpose: a few lstat calls
 * of this process's own private files take microseconds, where each trip through the thread pool
 * cost about 50 µs on every session start.
 */
function unchanged(copy: Made): boolean {
  for (const [path, identity] of copy.identities) {
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (info === undefined || identityOf(info) !== identity) return false;
  }
  return true;
}

/** Copies every file of `pin` into `root` (hashing each as copied), read-only; returns each copy's identity. */
async function copyPackage(pin: PackagePin, root: string): Promise<Map<string, string>> {
  const identities = new Map<string, string>();
  // The entry first: a changed entry is reported as the artifact's change.
  const order = Object.entries(pin.files).sort(([a], [b]) => (a === pin.entry ? -1 : b === pin.entry ? 1 : 0));
  for (const [path, expected] of order) {
    const parts = path.split('/');
    const from = join(pin.dir, ...parts);
    const to = join(root, ...parts);
    const file = { what: `the file ${path} of extension '${pin.extension}'`, code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.artifactBytes, noFollow: true } as const;
    await mkdir(dirname(to), { recursive: true, mode: 0o700 });
    // Hashed as it is copied: the copy is what was pinned, or nothing runs.
    const copied = await copyRegularFile(from, to, file, 0o700).catch((error: unknown) => {
      if (error instanceof MepError && error.code === LocalErrorCode.Limit) throw error;
      throw new MepError(LocalErrorCode.Registry, `Cannot read ${from}, a file of extension '${pin.extension}' pinned in ${pin.lock} (${(error as Error).message}). Restore it, or reinstall it with 'mep install <source>'.`, {
        cause: error,
        data: { extension: pin.extension, file: from, reason: path === pin.entry ? 'missing-artifact' : 'missing-file' },
      });
    });
    const check: ArtifactPin = { extension: pin.extension, file: from, expected, lock: pin.lock, what: path === pin.entry ? 'artifact' : 'package file' };
    if (copied.sha256 !== expected) throw mismatch(check, copied.sha256);
    await chmod(to, path === pin.entry ? 0o500 : 0o400);
    identities.set(to, identityOf(await lstat(to)));
  }
  return identities;
}

/**
 * A private copy of the installed package `pin.dir`, every file made from bytes that hash to its
 * pin (throws the hash-mismatch refusal of `verifyArtifact`, `reason: 'hash-mismatch'`, naming
 * the file, otherwise; `missing-file` when one cannot be read). Made once per pin and kept while
 * unchanged.
 *
 * @example
 * const copy = await pinnedCopy({ extension: id, dir: installed.dir, lock, entry: 'bin/ext.mjs', files });
 * spawn(copy.entry, { cwd: copy.dir });
 */
export async function pinnedCopy(pin: PackagePin): Promise<PinnedCopy> {
  // The type decides only how `.js` and extension-less files load: a package of `.mjs`/`.cjs` needs no walk.
  const typed = Object.keys(pin.files).some((path) => /(^|\/)[^./]+$|\.js$/.test(path));
  const type = typed ? await moduleTypeAbove(pin.dir) : undefined;
  const key = createHash('sha256').update(JSON.stringify([pin.dir, pin.entry, type ?? null, Object.entries(pin.files).sort()])).digest('hex');
  const known = made.get(key);
  if (known !== undefined && unchanged(known)) return { dir: known.dir, entry: known.entry };
  const top = join(runDirectory(), `${key.slice(0, 16)}-${++copies}`);
  const root = join(top, 'package');
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    if (type !== undefined) await writeFile(join(top, 'package.json'), `${JSON.stringify({ type })}\n`, { mode: 0o400, flag: 'wx' });
    const identities = await copyPackage(pin, root);
    const copy: Made = { dir: root, entry: join(root, ...pin.entry.split('/')), identities };
    made.set(key, copy);
    return { dir: copy.dir, entry: copy.entry };
  } catch (error) {
    await rm(top, { recursive: true, force: true });
    throw error;
  }
}
