/**
 * `mep install`: fetch a source, stage the package, hash the artifact, optionally probe its
 * claims, then swap it into `extensions/<id>/` and pin it in `extensions.lock`. Everything up to
 * the swap happens in scratch directories, so a failure leaves the previous install untouched.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClaimSet } from '../protocol/index.ts';
import { makeProcessTemp } from '../files/process-temp.ts';
import { noSpaceErrno, noSpaceWords } from '../files/no-space.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { readClaimSet } from '../session/read-claims.ts';
import type { Transport } from '../transport/types.ts';
import { archiveLimitsOf } from './archive/budget.ts';
import type { ArchiveLimits } from './archive/budget.ts';
import type { ExtensionId } from './extension-id.ts';
import { fetchPackage } from './fetch-source.ts';
import { parseInstallSource } from './install-source.ts';
import { openTransport } from './launch.ts';
import { readLock } from './lock.ts';
import { updateScopeLock } from './trust-lock.ts';
import { refuseLinkedScope } from './scope-links.ts';
import type { LockEntry } from './lock.ts';
import { MANIFEST_FILE, readManifest, readManifestFile } from './manifest.ts';
import { filesPin, pinnedEntryPath } from './package-pin.ts';
import { refuseManifestOutside } from './package-files.ts';
import { remoteSpecOf, remoteToken, stageRemotePackage } from './remote.ts';
import type { ExtensionManifest } from './manifest.ts';
import { checkClaimsIdentity, launchSpecOf } from './package-launch.ts';
import { packageDirOf, pathExists } from './paths.ts';
import type { RegistryPaths, Scope, ScopePaths } from './paths.ts';
import type { Platform } from './platform.ts';
import type { Redactor } from './redact.ts';
import { stagePackage } from './stage-package.ts';

/** Options of {@link installExtension}. */
export interface InstallOptions {
  /** What to install: a directory, a git URL (`//subdir`, `#ref`) or an archive (`#sha256=`). */
  source: string;
  paths: RegistryPaths;
  /** `project` (default: `.mep/`) or `user` (`$MEP_HOME`). */
  scope?: Scope;
  /**
   * Read the claim set now with describe. Default: yes for wasm (sandboxed), no for process
   * (never run at install unless asked; claims are read and pinned at the first session).
   */
  probe?: boolean;
  /** Probe deadline per request. Default 10 s. */
  timeoutMs?: number;
  /** Override of the host platform (tests). */
  platform?: Platform;
  /** Wraps the probe's transport (transcripts). */
  wrapTransport?: (transport: Transport) => Transport;
  /**
   * Budgets of an archive source: bytes it may take and unpack to, and members it may hold.
   * Default 512 MiB and 10,000 (`mep install --max-unpacked`, `--max-entries`).
   */
  archiveLimits?: Partial<ArchiveLimits>;
  /** Takes a remote package's token once resolved, so nothing the caller prints shows it (a server's error echoing it included). */
  redactor?: Redactor;
}

/** What was installed. */
export interface InstallResult {
  id: ExtensionId;
  version: string;
  runtime: ExtensionManifest['runtime'];
  scope: Scope;
  /** The installed package directory. */
  dir: string;
  /** The lock that pins it. */
  lock: string;
  entry: LockEntry;
  /** True when an earlier install of the same id was replaced. */
  replaced: boolean;
  /**
   * Whether the lock it wrote is trusted (always for the user scope). A project lock is trusted
   * after the user's install unless it pins other process or http extensions the user never
   * trusted (trust-lock.ts): then nothing of it runs unsandboxed until 'mep trust'.
   */
  trusted: boolean;
}


/**
 * Installs one extension.
 *
 * @example
 * const result = await installExtension({ source: './my-ext', paths: registryPaths({ cwd }) });
 */
export async function installExtension(options: InstallOptions): Promise<InstallResult> {
  const scope = options.scope ?? 'project';
  const target = options.paths[scope];
  const source = parseInstallSource(options.source, options.paths.projectRoot);
  const limits = archiveLimitsOf(options.archiveLimits);
  // Before anything is fetched: a project whose registry is a link elsewhere is refused first.
  await refuseLinkedScope(target);
  // Removed at exit too (Ctrl+C, SIGTERM), and by the next install when a killed one left it.
  const temp = makeProcessTemp('mep-install-');
  const scratch = temp.dir;
  try {
    const fetched = await fetchPackage(source, scratch, limits);
    await refuseManifestOutside(fetched.dir, options.source);
    const selected = await readManifest(fetched.dir);
    await refuseCaseVariant(target, selected.id);
    await refuseLinkedScope(target, selected.id);
    // A remote (`http`) package installs its manifest alone: nothing of it runs here.
    const staged = selected.runtime === 'http' ? await stageRemotePackage(fetched.dir, join(scratch, 'staged')) : await stagePackage(fetched.dir, selected, join(scratch, 'staged'), options.source, options.platform);
    // From here on, only the staged copy counts: what was hashed as it was copied is what is pinned.
    const { manifest, sha256: manifestSha256 } = await readManifestFile(staged.dir, { noFollow: true });
    const sha256 = staged.sha256.get(pinnedEntryPath(manifest));
    if (JSON.stringify(manifest) !== JSON.stringify(selected) || manifestSha256 !== staged.sha256.get(MANIFEST_FILE) || sha256 === undefined) {
      throw new MepError(LocalErrorCode.Registry, `The package from ${options.source} changed while it was installed; nothing was installed. Install it again once nothing writes to it.`, {
        data: { source: options.source, reason: 'changed-while-installing' },
      });
    }
    // A remote extension is always asked (its identity is what the lock can pin); a wasm one by default.
    const probe = manifest.runtime === 'http' || (options.probe ?? manifest.runtime === 'wasm');
    let claims: ClaimSet | undefined;
    if (probe) {
      const timeoutMs = options.timeoutMs ?? 10_000;
      const spec = manifest.runtime === 'http' ? remoteSpecOf(manifest, { token: await remoteToken(manifest, { paths: options.paths, ...(options.redactor ? { redactor: options.redactor } : {}) }) }) : launchSpecOf(manifest, staged.dir);
      const opened = await openTransport(spec);
      const transport = options.wrapTransport ? options.wrapTransport(opened) : opened;
      claims = (await readClaimSet({ transport, requestTimeoutMs: timeoutMs, shutdownTimeoutMs: timeoutMs })).claims;
      checkClaimsIdentity(manifest, claims, `the package from ${options.source}`);
    }
    const entry: LockEntry = {
      version: manifest.version,
      sha256,
      manifestSha256,
      files: filesPin(manifest, staged.sha256),
      runtime: manifest.runtime,
      ...(source.kind === 'directory' ? {} : { source: source.spec }),
      ...(fetched.commit ? { commit: fetched.commit } : {}),
      ...(staged.platform ? { platform: staged.platform } : {}),
      ...(manifest.runtime === 'http' && claims ? { url: manifest.url, identity: { id: claims.extension.id, version: claims.extension.version } } : {}),
      ...(claims ? { claims } : {}),
    };
    const dir = packageDirOf(target, manifest.id);
    let trusted = false;
    const replaced = await swapIn(staged.dir, dir, target.extensions, async () => {
      ({ trusted } = await updateScopeLock(options.paths, target, (lock) => {
        lock.extensions[manifest.id] = entry;
      }, manifest.id));
    });
    return { id: manifest.id, version: manifest.version, runtime: manifest.runtime, scope, dir, lock: target.lock, entry, replaced, trusted };
  } catch (error) {
    throw noSpaceError(error, options.source, scratch, target.extensions);
  } finally {
    await temp.remove();
  }
}

/**
 * A write that found no room (a full `$TMPDIR`, where the package is fetched and staged, or the
 * extensions folder it is moved into) as ERR_REGISTRY `no-space` naming both and what to do;
 * any other error as it is. Before, `unexpected failure: Error: ENOSPC` and a stack.
 */
function noSpaceError(error: unknown, source: string, scratch: string, extensions: string): unknown {
  const code = noSpaceErrno(error);
  if (code === undefined) return error;
  return new MepError(
    LocalErrorCode.Registry,
    `Installing ${source} stopped: ${noSpaceWords(code)} (${code}), in the scratch folder ${scratch} (under TMPDIR) or in ${extensions}. Nothing was installed and the scratch folder was removed. Free space there, or point TMPDIR at a folder with room for the package.`,
    { cause: error, data: { source, reason: 'no-space', errno: code, scratch, extensions } },
  );
}

/**
 * Refuses an id that differs only in case from one already installed in `scope`: on a
 * case-insensitive filesystem (macOS, Windows) both would be one directory, and the lock would
 * pin two ids for it.
 */
async function refuseCaseVariant(scope: ScopePaths, id: ExtensionId): Promise<void> {
  const names = [...Object.keys((await readLock(scope.lock)).extensions), ...(await readdir(scope.extensions).catch(() => []))];
  const other = names.find((name) => name !== id && name.toLowerCase() === id.toLowerCase());
  if (other !== undefined) {
    throw new MepError(LocalErrorCode.Registry, `Extension '${id}' differs only in case from the installed '${other}' in ${scope.extensions}; on a case-insensitive filesystem they are one directory. Remove '${other}' first ('mep remove ${other}'), or keep its id.`, {
      data: { extension: id, other, reason: 'id-case-collision' },
    });
  }
}

/**
 * Moves `staged` to `dir` with renames inside `extensionsDir` (one filesystem), runs `commit`
 * (the lock write), and only then drops the previous copy; if anything fails, the previous copy
 * is put back.
 */
async function swapIn(staged: string, dir: string, extensionsDir: string, commit: () => Promise<void>): Promise<boolean> {
  await mkdir(extensionsDir, { recursive: true });
  const suffix = randomBytes(4).toString('hex');
  const incoming = join(extensionsDir, `.incoming-${suffix}`);
  const previous = join(extensionsDir, `.previous-${suffix}`);
  // The scratch directory may be on another filesystem: copy next to the target first.
  await rename(staged, incoming).catch(() => cp(staged, incoming, { recursive: true, verbatimSymlinks: true }));
  const replaced = await pathExists(dir);
  try {
    if (replaced) await rename(dir, previous);
    await rename(incoming, dir);
    try {
      await commit();
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      if (replaced) await rename(previous, dir);
      throw error;
    }
  } catch (error) {
    if (replaced && !(await pathExists(dir)) && (await pathExists(previous))) await rename(previous, dir);
    await rm(incoming, { recursive: true, force: true });
    throw error;
  }
  await rm(previous, { recursive: true, force: true });
  return replaced;
}
