/**
 * Every file of an installed package is pinned, not only its entry and manifest: a process
 * extension runs with its package directory as working directory (it reads its `files`), the
 * host reads the `<entry>.map` beside a process entry and the `package.json` that decides how a
 * Node.js entry loads. The lock's `files` maps each other installed file (package path, forward
 * slashes) to its sha256; before every session (and in `mep list`) each one is hashed again and
 * the directory may hold nothing else. A pin from an older mep without `manifestSha256` or
 * `files` is refused until the package is installed again (install always writes both).
 */
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { InstalledExtension } from './discover.ts';
import { mismatch, sha256File } from './integrity.ts';
import type { LockEntry } from './lock.ts';
import { MANIFEST_FILE, entryOf } from './manifest.ts';
import type { ExtensionManifest } from './manifest.ts';

/** The installed path of the file pinned by `sha256` itself: the manifest for `http`, else the entry. */
export function pinnedEntryPath(manifest: ExtensionManifest): string {
  return manifest.runtime === 'http' ? MANIFEST_FILE : posix.normalize(entryOf(manifest).replace(/\\/g, '/'));
}

/** The `files` pin of a staged package: every staged file's sha256 but the manifest's and the entry's (pinned on their own). */
export function filesPin(manifest: ExtensionManifest, staged: ReadonlyMap<string, string>): Record<string, string> {
  const own = new Set([MANIFEST_FILE, pinnedEntryPath(manifest)]);
  return Object.fromEntries([...staged].filter(([path]) => !own.has(path)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A pin that has every hash (checked by {@link checkPinComplete}). */
export type CompletePin = LockEntry & { manifestSha256: string; files: Record<string, string> };

function refuse(installed: InstalledExtension, file: string, message: string, reason: string, extra: Record<string, unknown> = {}): MepError {
  return new MepError(LocalErrorCode.Registry, `Refusing to run extension '${installed.id}': ${message}`, {
    data: { extension: installed.id, dir: installed.dir, file, lock: installed.lock, reason, ...extra },
  });
}

/**
 * Refuses a pin written before every file was pinned (MepError ERR_REGISTRY, `reason:
 * 'old-pin'`, `missing`: the absent member): its files cannot be checked, so it does not run.
 */
export function checkPinComplete(installed: InstalledExtension, pin: LockEntry): asserts pin is CompletePin {
  const missing = pin.manifestSha256 === undefined ? 'manifestSha256' : pin.files === undefined ? 'files' : undefined;
  if (missing === undefined) return;
  throw new MepError(
    LocalErrorCode.Registry,
    `Refusing to run extension '${installed.id}' (${installed.dir}): ${installed.lock} pins it as an older mep did, without "${missing}", so not every file it runs with can be checked. Install it again with 'mep install <source>' (a project's lock stays trusted when it was; otherwise review it and run 'mep trust').`,
    { data: { extension: installed.id, dir: installed.dir, lock: installed.lock, reason: 'old-pin', missing } },
  );
}

/**
 * Hashes every pinned file of `installed` again and walks its directory: MepError ERR_REGISTRY
 * with `reason` `hash-mismatch` (a file changed), `missing-file` (a pinned file is gone) or
 * `unpinned-file` (anything else is there: a file added, or a link or special file), each
 * naming the file. The walk stops at the first file not pinned.
 */
export async function verifyPackageFiles(installed: InstalledExtension, files: Readonly<Record<string, string>>): Promise<void> {
  const own = new Set([MANIFEST_FILE, pinnedEntryPath(installed.manifest)]);
  for (const [path, expected] of Object.entries(files)) {
    const file = join(installed.dir, ...path.split('/'));
    const actual = await sha256File(file, { noFollow: true }).catch((error: unknown) => {
      throw refuse(installed, file, `${file}, a file of its package pinned in ${installed.lock}, cannot be read (${(error as Error).message}). Restore it, or install the package again with 'mep install <source>' (then 'mep trust' if the project's lock asks for it).`, 'missing-file');
    });
    if (actual !== expected) throw mismatch({ extension: installed.id, file, expected, lock: installed.lock, what: 'package file' }, actual);
  }
  const unpinned = await firstUnpinned(installed.dir, '', (path) => own.has(path) || Object.hasOwn(files, path));
  if (unpinned !== undefined) {
    const file = join(installed.dir, ...unpinned.split('/'));
    throw refuse(installed, file, `${file} is in its package but not pinned by ${installed.lock} (added after install: it would run, or be read, with the extension). Remove it, or install the package again with 'mep install <source>' (then 'mep trust' if the project's lock asks for it).`, 'unpinned-file');
  }
}

/** The first path under `dir` that is not a directory whose files are all `pinned`, nor a pinned regular file. */
async function firstUnpinned(root: string, prefix: string, pinned: (path: string) => boolean): Promise<string | undefined> {
  for (const entry of (await readdir(join(root, ...prefix.split('/').filter(Boolean)), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      const inner = await firstUnpinned(root, path, pinned);
      if (inner !== undefined) return inner;
    } else if (!entry.isFile() || !pinned(path)) {
      return path;
    }
  }
  return undefined;
}

