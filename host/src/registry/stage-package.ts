/**
 * Copies a fetched package into a staging directory the way it will be installed: only
 * `extension.json`, the entry (for a process, this host's executable vendored under the plain
 * `entry` name) and the manifest's `files` (package-files.ts decides, refusing anything that
 * resolves outside the package). Links inside the package are installed as the files they name.
 * Each file is copied from the file as opened (a regular file: a FIFO or a device is refused)
 * and hashed as it is copied, and `SHA256SUMS` is checked on those hashes: what is installed is
 * what was checked, whatever happens to the package meanwhile.
 */
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { entryOf, type ExtensionManifest } from './manifest.ts';
import { packageSumsFile, selectPackageFiles } from './package-files.ts';
import type { Platform } from './platform.ts';
import { checkSums } from './sums.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { copyRegularFile } from '../files/copy-file.ts';
import { readTextFile } from '../files/regular-file.ts';

/** What {@link stagePackage} produced. */
export interface StagedPackage {
  /** The staging directory (the future `extensions/<id>/`). */
  dir: string;
  /** Absolute path of the artifact in the staging directory. */
  artifact: string;
  /** `<os>-<arch>` when a per-platform executable was vendored. */
  platform?: string;
  /** The sha256 of each staged file as copied, by its path in the package. */
  sha256: ReadonlyMap<string, string>;
}

/**
 * Stages `packageDir` into `stagingDir` (which must not exist) for `manifest`, choosing the
 * process executable for `platform`. A package that carries `SHA256SUMS` (as `mep pack`
 * writes) has every file it installs checked against it first; `where` names it in errors.
 *
 * @example
 * const staged = await stagePackage(pkg.dir, manifest, join(scratch, 'staged'), spec);
 */
export async function stagePackage(packageDir: string, manifest: ExtensionManifest, stagingDir: string, where: string, platform?: Platform): Promise<StagedPackage> {
  const selection = await selectPackageFiles(packageDir, manifest, platform ? { platform } : {});
  const sumsFile = await packageSumsFile(selection.root, manifest);
  const sumsText = sumsFile === undefined ? undefined : await readTextFile(sumsFile, { what: 'the SHA256SUMS', code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.sumsBytes });
  await mkdir(stagingDir, { recursive: true });
  const sha256 = new Map<string, string>();
  const byOrigin = new Map<string, string>();
  for (const file of selection.files) {
    const target = join(stagingDir, ...file.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    const copied = await copyRegularFile(file.source, target, { what: `the package file ${file.origin}`, code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.artifactBytes });
    await chmod(target, file.executable ? 0o755 : 0o644);
    sha256.set(file.path, copied.sha256);
    byOrigin.set(file.origin, copied.sha256);
  }
  if (sumsText !== undefined) await checkSums(sumsText, selection.files.map((f) => ({ origin: f.origin, sha256: byOrigin.get(f.origin) as string })), where, selection.root);
  return { dir: stagingDir, artifact: join(stagingDir, entryOf(manifest)), ...(selection.platform ? { platform: selection.platform } : {}), sha256 };
}
