/** `mep remove <id>`: drop an installed package and its lock entry together. */
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { readLock, updateLock } from './lock.ts';
import { pathExists, scopesOf } from './paths.ts';
import type { RegistryPaths, Scope } from './paths.ts';

/** What {@link removeExtension} removed. */
export interface RemoveResult {
  id: string;
  scope: Scope;
  /** The directory that was removed (it may not have existed when only a lock entry was left). */
  dir: string;
  lock: string;
}


/**
 * Removes `id` from `scope`, or from the first scope that has it (project, then user). Throws
 * MepError(ERR_REGISTRY, `data.reason: 'not-installed'`) when no scope has it.
 *
 * @example
 * await removeExtension(registryPaths({ cwd }), 'acme.crm');
 */
export async function removeExtension(paths: RegistryPaths, id: string, scope?: Scope): Promise<RemoveResult> {
  for (const candidate of scopesOf(paths)) {
    if (scope && candidate.scope !== scope) continue;
    const dir = join(candidate.extensions, id);
    const locked = (await readLock(candidate.lock)).extensions[id] !== undefined;
    if (!locked && !(await pathExists(dir))) continue;
    // Move the directory aside first so a failed lock write can put it back.
    const aside = join(candidate.extensions, `.removing-${randomBytes(4).toString('hex')}`);
    const moved = await pathExists(dir);
    if (moved) await rename(dir, aside);
    try {
      await updateLock(candidate.lock, (lock) => {
        delete lock.extensions[id];
      });
    } catch (error) {
      if (moved) await rename(aside, dir);
      throw error;
    }
    if (moved) await rm(aside, { recursive: true, force: true });
    return { id, scope: candidate.scope, dir, lock: candidate.lock };
  }
  const where = scopesOf(paths)
    .filter((s) => !scope || s.scope === scope)
    .map((s) => s.extensions)
    .join(' or ');
  throw new MepError(LocalErrorCode.Registry, `Extension '${id}' is not installed in ${where}. Run 'mep list' to see what is.`, {
    data: { extension: id, reason: 'not-installed' },
  });
}
