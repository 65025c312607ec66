/**
 * Which project locks the user trusts. A project's `.mep/extensions.lock` pins what its
 * `.mep/extensions/` run; a repository the user clones can ship both, and a process extension
 * runs native code with the user's rights (an http one is sent the user's IR). Such an extension
 * installed in project scope runs only while the lock is byte for byte what the user trusted
 * (`mep trust`, recorded in `$MEP_HOME/trusted.json` beside the config's entry); a pull that
 * changes it untrusts it. A wasm extension is sandboxed (its secrets are gated by the config's
 * trust) and runs either way; the user scope is the user's own.
 *
 * The host's own writes keep a trusted lock trusted. `mep install` trusts the lock it wrote when
 * nothing else in it needed trust (the user just chose that extension), but never launders an
 * untrusted lock's other process or http entries.
 */
import { resolve } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { InstalledExtension } from './discover.ts';
import type { ExtensionId } from './extension-id.ts';
import { readLockFile, withLockHeld, writeLock } from './lock.ts';
import type { LockFile } from './lock.ts';
import type { RegistryPaths, ScopePaths } from './paths.ts';
import { recordTrusted, recordedTrust } from './trust.ts';
import { refuseLinkedScope } from './scope-links.ts';

/** `user` when the project's `.mep` is `$MEP_HOME` itself (the user's own lock). */
export type LockTrust = 'trusted' | 'untrusted' | 'changed' | 'user';

/** Whether the lock at `lock`, whose bytes hash to `sha256`, is trusted. */
export async function lockTrust(paths: RegistryPaths, lock: string, sha256: string | undefined): Promise<LockTrust> {
  return resolve(lock) === resolve(paths.user.lock) ? 'user' : recordedTrust(paths, lock, sha256);
}

/** True for what must be trusted to run: anything but a pinned wasm extension (an old pin without a runtime counts). */
function runsUnsandboxed(runtime: string | undefined): boolean {
  return runtime !== 'wasm';
}

/** Why `installed` may not run outside the sandbox (`untrusted`, `changed`), or undefined when it may (wasm, user scope, a trusted lock). */
export async function untrustedState(installed: InstalledExtension, paths: RegistryPaths): Promise<'untrusted' | 'changed' | undefined> {
  if (installed.scope !== 'project' || !runsUnsandboxed(installed.manifest.runtime)) return undefined;
  const state = await lockTrust(paths, installed.lock, installed.lockRead.sha256);
  return state === 'trusted' || state === 'user' ? undefined : state;
}

/**
 * Refuses a project-scope process or http extension whose lock the user has not trusted (or
 * that changed since): MepError(ERR_REGISTRY, `reason: 'untrusted-lock'`, `state`), before
 * anything is copied, started or sent.
 */
export async function checkLockTrust(installed: InstalledExtension, paths: RegistryPaths): Promise<void> {
  const state = await untrustedState(installed, paths);
  if (state === undefined) return;
  const what = installed.manifest.runtime === 'http' ? 'is sent your project as a remote http extension' : 'runs native code with your rights';
  const since = state === 'changed' ? 'has changed since you trusted it' : 'is not one you trusted';
  throw new MepError(
    LocalErrorCode.Registry,
    `Refusing to run extension '${installed.id}' (${installed.dir}): it ${what}, installed in this project's .mep/extensions, and the project's lock ${installed.lock} ${since} (a cloned repository or a pull can ship both). Review .mep/extensions.lock and .mep/extensions/, then run 'mep trust' in the project to run them; or install your own with 'mep install --user'.`,
    { data: { extension: installed.id, dir: installed.dir, lock: installed.lock, reason: 'untrusted-lock', state } },
  );
}

/** What a trust-aware lock write did: whether the project's lock is trusted afterwards (always true for the user scope). */
export interface LockWrite {
  lock: LockFile;
  /** The sha256 of the bytes written. */
  sha256: string;
  trusted: boolean;
}

/**
 * Read-modify-write of `scope`'s lock, under its lock file (two `mep install` at once keep both entries), that keeps a trusted project lock trusted (the host's own
 * write). With `chosen` (an install), the lock is trusted afterwards also when it was not, if it
 * holds no other entry that would need trust: the user just chose that one, and nothing else.
 */
export async function updateScopeLock(paths: RegistryPaths, scope: ScopePaths, change: (lock: LockFile) => void, chosen?: ExtensionId): Promise<LockWrite> {
  await refuseLinkedScope(scope, chosen);
  return withLockHeld(scope.lock, async () => {
    const before = await readLockFile(scope.lock);
    const state = scope.scope === 'user' ? 'user' : await lockTrust(paths, scope.lock, before.sha256);
    const others = Object.entries(before.lock.extensions).filter(([id, entry]) => id !== chosen && runsUnsandboxed(entry.runtime));
    const keep = state === 'trusted' || state === 'user' || (chosen !== undefined && others.length === 0);
    change(before.lock);
    const sha256 = await writeLock(scope.lock, before.lock);
    if (keep && state !== 'user') await recordTrusted(paths, resolve(scope.lock), sha256);
    return { lock: before.lock, sha256, trusted: keep };
  });
}

/** What {@link trustProjectLock} trusted: the lock and the entries it lets run unsandboxed. */
export interface LockTrustResult {
  path: string;
  sha256: string;
  already: boolean;
  runs: { id: string; version: string; runtime: string }[];
}

/** Records the project's lock as trusted with the sha256 of its bytes; undefined when it has none (or it is the user's own). */
export async function trustProjectLock(paths: RegistryPaths): Promise<LockTrustResult | undefined> {
  const { lock, sha256 } = await readLockFile(paths.project.lock);
  if (sha256 === undefined || resolve(paths.project.lock) === resolve(paths.user.lock)) return undefined;
  const path = resolve(paths.project.lock);
  const already = !(await recordTrusted(paths, path, sha256));
  const runs = Object.entries(lock.extensions)
    .filter(([, entry]) => runsUnsandboxed(entry.runtime))
    .map(([id, entry]) => ({ id, version: entry.version, runtime: entry.runtime ?? 'unknown' }));
  return { path, sha256, already, runs };
}
