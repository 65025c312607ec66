/** `mep remove <id>`: drop an installed package and its lock entry together. */
import { randomBytes } from 'node:crypto';
import { lstat, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { parseExtensionId } from './extension-id.ts';
import type { ExtensionId } from './extension-id.ts';
import { lockEntryOf, readLock } from './lock.ts';
import { updateScopeLock } from './trust-lock.ts';
import { refuseLinkedScope } from './scope-links.ts';
import { packageDirOf, scopesOf } from './paths.ts';
import type { RegistryPaths, Scope } from './paths.ts';

/** What {@link removeExtension} removed. */
export interface RemoveResult {
  id: ExtensionId;
  scope: Scope;
  /** The directory that was removed (it may not have existed when only a lock entry was left). */
  dir: string;
  lock: string;
}

/** True when `path` exists as anything, a dangling symlink included. */
async function entryExists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/**
 * Removes `id` from `scope`, or from the first scope that has it (project, then user). An `id`
 * that is not a plain id (`../x`, `a/b`, `.`, an absolute path, `.removing-…`) is refused with
 * MepError(ERR_USAGE, `data.reason: 'bad-id'`) before any filesystem call. Throws
 * MepError(ERR_REGISTRY, `data.reason: 'not-installed'`) when no scope has it.
 *
 * @example
 * await removeExtension(registryPaths({ cwd }), 'acme.crm');
 */
export async function removeExtension(paths: RegistryPaths, id: string, scope?: Scope): Promise<RemoveResult> {
  const plain = parseExtensionId(id, 'The id to remove');
  for (const candidate of scopesOf(paths)) {
    if (scope && candidate.scope !== scope) continue;
    const dir = packageDirOf(candidate, plain);
    const locked = lockEntryOf(await readLock(candidate.lock), plain) !== undefined;
    if (!locked && !(await entryExists(dir))) continue;
    // A package directory that is a link is moved and removed as the link itself (below); the folders above it must be real.
    await refuseLinkedScope(candidate);
    // Move the directory aside first so a failed lock write can put it back. A symlink is moved
    // and removed as the link itself: what it points to is never touched.
    const aside = join(candidate.extensions, `.removing-${randomBytes(4).toString('hex')}`);
    const moved = await entryExists(dir);
    if (moved) await rename(dir, aside);
    try {
      await updateScopeLock(paths, candidate, (lock) => {
        delete lock.extensions[plain];
      });
    } catch (error) {
      if (moved) await rename(aside, dir);
      throw error;
    }
    if (moved) await rm(aside, { recursive: true, force: true });
    return { id: plain, scope: candidate.scope, dir, lock: candidate.lock };
  }
  const where = scopesOf(paths)
    .filter((s) => !scope || s.scope === scope)
    .map((s) => s.extensions)
    .join(' or ');
  throw new MepError(LocalErrorCode.Registry, `Extension '${plain}' is not installed in ${where}. Run 'mep list' to see what is.`, {
    data: { extension: plain, reason: 'not-installed' },
  });
}
