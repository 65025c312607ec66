/** From an installed (or staged) package to the launch spec that runs it. */
import { join } from 'node:path';
import type { ClaimSet } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { LaunchSpec } from './launch.ts';
import { withGrants } from './launch-grants.ts';
import { entryOf, type ExtensionManifest } from './manifest.ts';
import { remoteSpecOf } from './remote.ts';

/**
 * The launch spec of the package in `dir`: the manifest's runtime, args and explicit env (a
 * process gets nothing else), working directory the package directory, its `limits`, and the
 * clock and randomness its `permissions` ask for.
 */
export function launchSpecOf(manifest: ExtensionManifest, dir: string): LaunchSpec {
  if (manifest.runtime === 'http') return remoteSpecOf(manifest);
  const { clock, random } = manifest.permissions ?? {};
  return withGrants<LaunchSpec>({
    name: manifest.id,
    runtime: manifest.runtime,
    path: join(dir, entryOf(manifest)),
    args: [...(manifest.args ?? [])],
    env: { ...(manifest.env ?? {}) },
    cwd: dir,
    ...(manifest.limits ? { limits: { ...manifest.limits } } : {}),
  }, { clock, random });
}

/**
 * Refuses claims whose extension id differs from the manifest's: the package would be pinned
 * and selected under an identity the artifact does not report.
 */
export function checkClaimsIdentity(manifest: ExtensionManifest, claims: ClaimSet, where: string): void {
  if (claims.extension.id !== manifest.id) {
    throw new MepError(
      LocalErrorCode.Registry,
      `The artifact of ${where} reports extension id '${claims.extension.id}', but its extension.json says '${manifest.id}'. Fix the manifest's "id" (the artifact is the authority) and reinstall.`,
      { data: { extension: manifest.id, claimed: claims.extension.id, reason: 'identity' } },
    );
  }
}
