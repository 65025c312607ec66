/**
 * Which files make up a package: `extension.json`, the manifest's `entry` (for a process, the
 * plain executable or this host's `<entry>-<os>-<arch>`; for `mep pack`, all of them), the
 * source map beside a process entry when there is one (`<entry>.map`, as `mep build --runtime
 * process` writes it: installed as `<entry>.map`, so the installed extension's errors still name
 * the author's sources) and the files and directories its `files` list names. Nothing else: an
 * author's `node_modules`, sources and build caches stay behind. Every path must resolve inside
 * the package on disk: a symlink (or a directory on the way) that leaves it is refused, never
 * followed and copied, and so is a hard link (a file with other names, maybe outside).
 */
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { isWithin } from '../files/path-within.ts';
import { isMepError, LocalErrorCode, MepError } from '../protocol/errors.ts';
import { createArtifactPathSet } from '../artifacts/path-set.ts';
import { checkArtifactPath } from '../artifacts/validate.ts';
import type { ExtensionManifest } from './manifest.ts';
import { MANIFEST_FILE, entryOf } from './manifest.ts';
import { SUMS_FILE } from './sums.ts';
import { platformSiblings, resolvePlatformArtifact } from './platform.ts';
import type { Platform } from './platform.ts';

/** One file of a package. */
export interface PackageFile {
  /** Where it goes in the package, forward slashes. */
  path: string;
  /** The path in the package it was taken from (differs for a vendored `<entry>-<os>-<arch>`). */
  origin: string;
  /** The real path of its contents on disk (inside the package). */
  source: string;
  /** Installed with mode 0o755 (the process executable, or a file stored executable). */
  executable: boolean;
}

/** The selected files, sorted by path, and what was chosen for the entry. */
export interface PackageSelection {
  /** The package directory's real path. */
  root: string;
  files: PackageFile[];
  /** `<os>-<arch>` when a per-platform executable was chosen as the entry. */
  platform?: string;
}

/** Whose executables to take: this host's (install), or every platform's (pack). */
export type PlatformChoice = { platform?: Platform } | 'all';

function refuse(manifest: ExtensionManifest, path: string, why: string): MepError {
  return new MepError(LocalErrorCode.Registry, `Refusing the package of '${manifest.id}': ${path} ${why}. Replace it with the file itself inside the package.`, {
    data: { extension: manifest.id, entry: path, reason: 'unsafe-entry' },
  });
}

/** The real path of `root/path`, refused when it (or a directory on the way) leaves `root`; undefined when missing. */
async function realInside(root: string, path: string, manifest: ExtensionManifest): Promise<string | undefined> {
  const absolute = join(root, path);
  if (!(await lstat(absolute).catch(() => undefined))) return undefined;
  const real = await realpath(absolute).catch(() => undefined);
  if (real === undefined) throw refuse(manifest, path, 'is a symlink to nothing');
  if (!isWithin(real, root)) throw refuse(manifest, path, `is a symlink, or lies under one, resolving outside the package (to ${real})`);
  return real;
}

/**
 * Refuses (MepError ERR_REGISTRY, `unsafe-entry`) a package whose `extension.json` is a symlink,
 * or lies under one, resolving outside `packageDir`, before it is read: the manifest is read
 * before the other files are selected, and a git package's `extension.json -> ~/.ssh/id_ed25519`
 * had the user's key read and its first characters shown in the JSON error.
 */
export async function refuseManifestOutside(packageDir: string, source: string): Promise<void> {
  const root = await realpath(packageDir).catch(() => undefined);
  const absolute = join(packageDir, MANIFEST_FILE);
  if (root === undefined || !(await lstat(absolute).catch(() => undefined))) return; // missing: the manifest's reader says so
  const real = await realpath(absolute).catch(() => undefined);
  if (real !== undefined && isWithin(real, root)) return;
  throw new MepError(
    LocalErrorCode.Registry,
    `Refusing the package from ${source}: ${MANIFEST_FILE} is a symlink ${real === undefined ? 'to nothing' : 'resolving outside the package'}; it was not read. A package's manifest is a file inside it; ask its publisher for one.`,
    { data: { source, entry: MANIFEST_FILE, reason: 'unsafe-entry' } },
  );
}

async function isExecutable(real: string): Promise<boolean> {
  return ((await stat(real)).mode & 0o111) !== 0;
}

/**
 * The real path of the package's `SHA256SUMS`, or undefined when it has none; refused like any
 * other member when it resolves outside the package.
 */
export async function packageSumsFile(root: string, manifest: ExtensionManifest): Promise<string | undefined> {
  return realInside(root, SUMS_FILE, manifest);
}

/**
 * Adds the source map beside the executable at `origin` (`<origin>.map`), when it is a file, as
 * `<path>.map`: the map of the entry installed as `path`. A wasm module carries its map inside.
 */
async function addSourceMap(root: string, origin: string, path: string, manifest: ExtensionManifest, out: Map<string, PackageFile>): Promise<void> {
  const real = await realInside(root, `${origin}.map`, manifest);
  if (real === undefined || !(await stat(real)).isFile()) return;
  out.set(`${path}.map`, { path: `${path}.map`, origin: `${origin}.map`, source: real, executable: false });
}

/** Adds `path` (a file, or a directory walked whole) to `out`; `seen` stops link cycles. */
async function addListed(root: string, path: string, manifest: ExtensionManifest, out: Map<string, PackageFile>, seen: Set<string>): Promise<void> {
  const real = await realInside(root, path, manifest);
  if (real === undefined) {
    throw new MepError(LocalErrorCode.Registry, `The package of '${manifest.id}' lists ${path} in "files", but there is no such file. Build it first, or fix the manifest's "files".`, {
      data: { extension: manifest.id, file: path, reason: 'missing-file' },
    });
  }
  const info = await stat(real);
  if (info.isFile()) {
    if (!out.has(path)) out.set(path, { path, origin: path, source: real, executable: (info.mode & 0o111) !== 0 });
    return;
  }
  if (!info.isDirectory() || seen.has(real)) return;
  seen.add(real);
  for (const name of (await readdir(real)).sort()) {
    if (name === '.git') continue;
    await addListed(root, posix.join(path, name), manifest, out, seen);
  }
}

/**
 * Refuses (ERR_REGISTRY, `unsafe-entry`) a package installing a file under a name that an
 * artifact may not have, whatever its source (directory, archive, git): a `.git` or `.mep`
 * folder (a `.git/config` whose `core.fsmonitor` a git-aware shell prompt runs in the installed
 * folder, outside any sandbox), a Windows device name (`con.txt`: an archive's member was refused,
 * the same file listed by a directory or git package installed), a stream, a trailing dot or
 * space, controls, and two names that are one file on macOS or Windows.
 */
function checkInstalledNames(manifest: ExtensionManifest, files: readonly PackageFile[]): void {
  const names = createArtifactPathSet(manifest.id);
  for (const file of files) {
    try {
      checkArtifactPath(manifest.id, file.path);
      names.add(file.path);
    } catch (error) {
      if (!isMepError(error)) throw error;
      const problem = String((error.data as { problem?: unknown }).problem);
      throw new MepError(LocalErrorCode.Registry, `Refusing the package of '${manifest.id}': it installs ${JSON.stringify(file.path)}, and ${problem}. Rename it, or leave it out of the manifest's "files"; nothing was installed.`, {
        data: { extension: manifest.id, entry: file.path, reason: 'unsafe-entry', problem, ...((error.data as { rule?: unknown }).rule === undefined ? {} : { rule: (error.data as { rule?: unknown }).rule }) },
      });
    }
  }
}

/**
 * The files of the package in `packageDir` for `manifest`. Throws MepError(ERR_REGISTRY) with
 * `data.reason` `unsafe-entry` (a path resolving outside), `missing-file` (a listed file that
 * is not there), `missing-artifact` (no wasm entry) or `platform` (no executable for the host).
 *
 * @example
 * const { files } = await selectPackageFiles(dir, manifest, { platform: hostPlatform() });
 */
export async function selectPackageFiles(packageDir: string, manifest: ExtensionManifest, choice: PlatformChoice = {}): Promise<PackageSelection> {
  const root = await realpath(packageDir);
  const out = new Map<string, PackageFile>();
  const manifestReal = await realInside(root, MANIFEST_FILE, manifest);
  if (manifestReal === undefined) throw refuse(manifest, MANIFEST_FILE, 'is missing');
  out.set(MANIFEST_FILE, { path: MANIFEST_FILE, origin: MANIFEST_FILE, source: manifestReal, executable: false });
  const entry = posix.normalize(entryOf(manifest).replace(/\\/g, '/'));
  let platform: string | undefined;
  if (manifest.runtime === 'wasm') {
    const real = await realInside(root, entry, manifest);
    if (real === undefined || !(await stat(real)).isFile()) {
      throw new MepError(LocalErrorCode.Registry, `Extension '${manifest.id}' has no wasm module ${manifest.entry} in its package. Check the manifest's "entry" or build the module first.`, {
        data: { extension: manifest.id, entry: manifest.entry, reason: 'missing-artifact' },
      });
    }
    out.set(entry, { path: entry, origin: entry, source: real, executable: false });
  } else if (choice === 'all') {
    // Packing: the plain executable and every per-platform one, each under its own name.
    const candidates = [join(root, entry), ...(await platformSiblings(join(root, entry))).map((s) => s.file)];
    for (const file of candidates) {
      const path = relative(root, file).split(sep).join('/');
      const real = await realInside(root, path, manifest);
      if (real !== undefined && (await stat(real)).isFile()) out.set(path, { path, origin: path, source: real, executable: await isExecutable(real) });
    }
    if (out.size === 1) {
      throw new MepError(LocalErrorCode.Registry, `Extension '${manifest.id}' has no executable ${manifest.entry} (nor any ${manifest.entry}-<os>-<arch>) in its package. Build it first, or check the manifest's "entry".`, {
        data: { extension: manifest.id, entry: manifest.entry, reason: 'missing-artifact' },
      });
    }
    for (const executable of [...out.keys()].filter((path) => path !== MANIFEST_FILE)) await addSourceMap(root, executable, executable, manifest, out);
  } else {
    const chosen = await resolvePlatformArtifact(root, entry, manifest.id, choice.platform);
    const origin = relative(root, chosen.file).split(sep).join('/');
    const real = await realInside(root, origin, manifest);
    if (real === undefined) throw refuse(manifest, origin, 'is missing');
    out.set(entry, { path: entry, origin, source: real, executable: true });
    await addSourceMap(root, origin, entry, manifest, out);
    platform = chosen.platform;
  }
  const seen = new Set<string>();
  for (const listed of manifest.files ?? []) await addListed(root, posix.normalize(listed.replace(/\\/g, '/')).replace(/\/+$/, ''), manifest, out, seen);
  const files = [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  checkInstalledNames(manifest, files);
  for (const file of files) {
    // A hard link is the same file as a name elsewhere, maybe outside the package (a key): nothing
    // on the path says so, and packing or installing it would carry that file along.
    if ((await stat(file.source)).nlink > 1) {
      throw new MepError(LocalErrorCode.Registry, `Refusing the package of '${manifest.id}': ${file.origin} is a hard link (one file with other names, maybe outside the package). Replace it with a copy of its own.`, {
        data: { extension: manifest.id, entry: file.origin, reason: 'hard-link' },
      });
    }
  }
  return { root, files, ...(platform ? { platform } : {}) };
}
