/**
 * Readying an installed extension for a session: the lock must pin it, the manifest must agree
 * with the pin, and the artifact must hash to the pinned sha256 (checked before every session).
 * Claims come from the lock; an extension installed without a probe has them read now and
 * pinned (MEP 0.1, Capability claims: read at the first session).
 */
import type { ClaimSet } from '../protocol/index.ts';
import { parseClaimSet } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { readClaimSet } from '../session/read-claims.ts';
import type { Transport } from '../transport/types.ts';
import type { InstalledExtension } from './discover.ts';
import { join } from 'node:path';
import { mismatch, verifyArtifact } from './integrity.ts';
import { pinnedCopy } from './pinned-copy.ts';
import { MANIFEST_FILE } from './manifest.ts';
import { checkPinComplete, pinnedEntryPath, verifyPackageFiles, type CompletePin } from './package-pin.ts';
import { openTransport } from './launch.ts';
import type { LaunchSpec } from './launch.ts';
import { lockEntryOf } from './lock.ts';
import { checkLockTrust, updateScopeLock } from './trust-lock.ts';
import { checkClaimsIdentity, launchSpecOf } from './package-launch.ts';
import { remoteToken, type TokenContext } from './remote.ts';

/** Options for reading claims that are not pinned yet. */
export interface ClaimReadOptions {
  /** Deadline per request. Default 10 s. */
  timeoutMs?: number;
  /** Wraps the transport (transcripts). */
  wrapTransport?: (transport: Transport) => Transport;
  /** Told when claims had to be read from the artifact and were pinned. */
  onPinned?: (extension: InstalledExtension, claims: ClaimSet) => void;
}

function refuse(installed: InstalledExtension, message: string, reason: string): MepError {
  return new MepError(LocalErrorCode.Registry, `Refusing to run extension '${installed.id}' (${installed.dir}): ${message}`, {
    data: { extension: installed.id, dir: installed.dir, lock: installed.lock, reason },
  });
}

/** The pin of `installed`, checked against the manifest as it was read (its bytes' hash, version, runtime). */
function checkedPin(installed: InstalledExtension): CompletePin {
  const pin = installed.lockEntry;
  if (!pin) throw refuse(installed, `${installed.lock} does not pin it. Install it with 'mep install <source>' instead of copying it in.`, 'not-locked');
  if (pin.runtime !== undefined && pin.runtime !== installed.manifest.runtime) {
    throw refuse(installed, `its extension.json says runtime '${installed.manifest.runtime}', the lock pins '${pin.runtime}'. Reinstall it.`, 'manifest-changed');
  }
  if (pin.version !== installed.manifest.version) {
    throw refuse(installed, `its extension.json says version ${installed.manifest.version}, the lock pins ${pin.version}. Reinstall it.`, 'manifest-changed');
  }
  // A pin without the manifest's or the other files' hashes (an older mep's) cannot be checked whole.
  checkPinComplete(installed, pin);
  // The hash of the bytes the manifest was parsed from, not of the file now: what decides how
  // the artifact runs is what was checked.
  if (installed.manifestSha256 !== pin.manifestSha256) {
    throw mismatch({ extension: installed.id, file: join(installed.dir, MANIFEST_FILE), expected: pin.manifestSha256, lock: installed.lock, what: 'manifest' }, installed.manifestSha256);
  }
  return pin;
}

/**
 * Checks `installed` against its lock without preparing a run (`mep list`). Throws
 * MepError(ERR_REGISTRY) when it is not pinned, disagrees with its pin, or its artifact's hash changed.
 */
export async function checkInstalled(installed: InstalledExtension): Promise<void> {
  const pin = checkedPin(installed);
  await verifyArtifact({ extension: installed.id, file: installed.artifact, expected: pin.sha256, lock: installed.lock });
  await verifyPackageFiles(installed, pin.files);
}

/**
 * What readying an installed extension needs besides it: the registry it was found in (whose
 * configuration approves a remote's token) and the run's redactor (which takes the token).
 */
export type LaunchContext = TokenContext;

/**
 * Verifies `installed` against its lock and returns its launch spec, the whole plan of how it
 * runs. Throws MepError(ERR_REGISTRY) when it is not pinned, disagrees with its pin, or its
 * artifact's hash changed; a remote's token is resolved only when a session is opened (and an
 * unresolvable one is ERR_REGISTRY then). What runs is what
 * was hashed: a wasm module is checked again on the bytes that are compiled; a process entry
 * runs from a private copy of its whole package made of the bytes that were hashed
 * (pinned-copy.ts), the copy's package directory its working directory; a remote is sent its token and must report the pinned
 * identity on every session (remote.ts).
 */
export async function verifyInstalled(installed: InstalledExtension, context: LaunchContext): Promise<LaunchSpec> {
  const pin = checkedPin(installed);
  // A project's process or http extension runs only from a lock the user trusted (trust-lock.ts).
  await checkLockTrust(installed, context.paths);
  // Every other file it runs with (its working directory's, the entry's map) is what was installed.
  await verifyPackageFiles(installed, pin.files);
  const spec = launchSpecOf(installed.manifest, installed.dir);
  await verifyArtifact({ extension: installed.id, file: installed.artifact, expected: pin.sha256, lock: installed.lock });
  if (installed.manifest.runtime === 'http') {
    // Nothing runs here: the manifest (the pinned file) must name the pinned URL, and the server
    // must report the pinned identity (checked on the session's handshake, registry/remote.ts).
    if (pin.url !== installed.manifest.url || pin.identity === undefined) {
      throw refuse(installed, `${installed.lock} does not pin its URL and identity (${installed.manifest.url}). Reinstall it with 'mep install <source>'.`, 'not-locked');
    }
    // The token is resolved when a session is opened, not here: what reads only the lock (describe
    // of the pinned claims) needs no secret. Resolved once; a failure is tried again next session.
    let token: Promise<string | undefined> | undefined;
    const resolveToken = (): Promise<string | undefined> =>
      (token ??= remoteToken(installed.manifest, context).catch((error: unknown) => {
        token = undefined;
        throw error;
      }));
    return { ...spec, remote: { identity: { id: pin.identity.id, version: pin.identity.version }, ...(installed.manifest.token === undefined ? {} : { token: resolveToken }) } };
  }
  if (installed.manifest.runtime === 'wasm') return { ...spec, sha256: pin.sha256 };
  // Every file of the package, copied as hashed: what it imports or reads later is what was pinned.
  const entry = pinnedEntryPath(installed.manifest);
  const copy = await pinnedCopy({ extension: installed.id, dir: installed.dir, lock: installed.lock, entry, files: { ...pin.files, [MANIFEST_FILE]: pin.manifestSha256, [entry]: pin.sha256 } });
  return { ...spec, path: copy.entry, cwd: copy.dir, sha256: pin.sha256 };
}

/**
 * The claim set of a verified extension: the pinned one, or (first session of a process
 * extension installed without `--probe`) read from the artifact and pinned in its lock.
 */
export async function claimsOf(installed: InstalledExtension, context: LaunchContext, options: ClaimReadOptions = {}): Promise<{ claims: ClaimSet; source: 'lock' | 'describe' | 'session' }> {
  const pinned = installed.lockEntry?.claims;
  if (pinned !== undefined) {
    try {
      return { claims: parseClaimSet(pinned), source: 'lock' };
    } catch (error) {
      throw refuse(installed, `the claim set pinned in ${installed.lock} is unreadable (${(error as Error).message}). Reinstall it.`, 'bad-claims');
    }
  }
  const spec = await verifyInstalled(installed, context);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const opened = await openTransport(spec);
  const transport = options.wrapTransport ? options.wrapTransport(opened) : opened;
  const { claims, source } = await readClaimSet({ transport, requestTimeoutMs: timeoutMs, shutdownTimeoutMs: timeoutMs });
  checkClaimsIdentity(installed.manifest, claims, `'${installed.id}' in ${installed.dir}`);
  // The host's own write: a trusted lock stays trusted.
  // The entry now is the one read plus these claims, in the bytes just written (trusted only if the lock was).
  const written = await updateScopeLock(context.paths, context.paths[installed.scope], (lock) => {
    const entry = lockEntryOf(lock, installed.id);
    if (entry && entry.sha256 === installed.lockEntry?.sha256) entry.claims = claims;
  });
  installed.lockRead.sha256 = written.sha256;
  installed.lockEntry = { ...(installed.lockEntry as NonNullable<InstalledExtension['lockEntry']>), claims };
  options.onPinned?.(installed, claims);
  return { claims, source };
}
