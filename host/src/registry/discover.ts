/**
 * Discovery of installed extensions: `extensions/<id>/` directories of the project scope and
 * then the user scope, each paired with its lock entry. A project-local id shadows the same id
 * installed user-wide.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isMepError } from '../protocol/errors.ts';
import { extensionIdProblem, parseExtensionId } from './extension-id.ts';
import type { ExtensionId } from './extension-id.ts';
import { lockEntryOf, readLockFile } from './lock.ts';
import type { LockEntry } from './lock.ts';
import { MANIFEST_FILE, entryOf, readManifestFile } from './manifest.ts';
import type { ExtensionManifest } from './manifest.ts';
import { packageDirOf, scopesOf } from './paths.ts';
import type { RegistryPaths, Scope, ScopePaths } from './paths.ts';

/** One installed package. */
export interface InstalledExtension {
  id: ExtensionId;
  scope: Scope;
  /** The package directory. */
  dir: string;
  manifest: ExtensionManifest;
  /** The sha256 of the bytes `manifest` was parsed from (checked against the lock's pin). */
  manifestSha256: string;
  /** Absolute path of the artifact that runs; for `http`, the manifest (the only file, which names the URL). */
  artifact: string;
  /** The lock of its scope. */
  lock: string;
  /**
   * The sha256 of the lock's bytes `lockEntry` was read from (a project's lock runs process and
   * http extensions only while trusted): one object per scope's read, shared by its extensions,
   * so the host's own write of that lock (claims pinned at first use) updates it for all of them.
   */
  lockRead: { sha256?: string };
  /** Its lock entry; undefined when the lock does not pin it (it will not run). */
  lockEntry?: LockEntry;
}

/** A package directory that could not be read, with the reason. */
export interface DiscoveryProblem {
  scope: Scope;
  dir: string;
  message: string;
}

/** Everything installed, in precedence order, without shadowed ids. */
export interface Discovery {
  extensions: InstalledExtension[];
  /** User-scope packages hidden by a project-local one with the same id. */
  shadowed: InstalledExtension[];
  problems: DiscoveryProblem[];
}

async function discoverScope(scope: ScopePaths, problems: DiscoveryProblem[]): Promise<InstalledExtension[]> {
  let names: string[];
  try {
    names = (await readdir(scope.extensions, { withFileTypes: true })).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
  } catch {
    return [];
  }
  const { lock, sha256 } = await readLockFile(scope.lock);
  const lockRead = sha256 === undefined ? {} : { sha256 };
  const found: InstalledExtension[] = [];
  for (const name of names.sort()) {
    const problem = extensionIdProblem(name);
    if (problem !== undefined) {
      // Not something install makes: report it, never read from it.
      problems.push({ scope: scope.scope, dir: join(scope.extensions, name), message: `the directory name ${JSON.stringify(name)} ${problem}, so it is not an installed extension; remove it.` });
      continue;
    }
    const id = name as ExtensionId;
    const dir = packageDirOf(scope, id);
    try {
      const { manifest, sha256: manifestSha256 } = await readManifestFile(dir, { noFollow: true });
      if (manifest.id !== id) {
        problems.push({ scope: scope.scope, dir, message: `extension.json says id '${manifest.id}' but the directory is '${name}'; reinstall it with 'mep install'.` });
        continue;
      }
      const lockEntry = lockEntryOf(lock, id);
      found.push({ id, scope: scope.scope, dir, manifest, manifestSha256, artifact: join(dir, manifest.runtime === 'http' ? MANIFEST_FILE : entryOf(manifest)), lock: scope.lock, lockRead, ...(lockEntry ? { lockEntry } : {}) });
    } catch (error) {
      if (!isMepError(error)) throw error;
      problems.push({ scope: scope.scope, dir, message: error.message });
    }
  }
  return found;
}

/**
 * Lists installed extensions, project scope first.
 *
 * @example
 * const { extensions } = await discoverExtensions(registryPaths({ cwd }));
 */
export async function discoverExtensions(paths: RegistryPaths): Promise<Discovery> {
  const problems: DiscoveryProblem[] = [];
  const extensions: InstalledExtension[] = [];
  const shadowed: InstalledExtension[] = [];
  for (const scope of scopesOf(paths)) {
    for (const found of await discoverScope(scope, problems)) {
      if (extensions.some((e) => e.id === found.id)) shadowed.push(found);
      else extensions.push(found);
    }
  }
  return { extensions, shadowed, problems };
}

/**
 * The installed extension with `id` (project scope wins), or undefined. An `id` that is not a
 * plain id is refused with MepError(ERR_USAGE, `data.reason: 'bad-id'`) before anything is read.
 */
export async function findInstalled(paths: RegistryPaths, id: string): Promise<InstalledExtension | undefined> {
  const plain = parseExtensionId(id);
  return (await discoverExtensions(paths)).extensions.find((e) => e.id === plain);
}
