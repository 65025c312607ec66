/**
 * Copies a fetched package into a staging directory the way it will be installed: only
 * `extension.json`, the entry (for a process, this host's executable vendored under the plain
 * `entry` name) and the manifest's `files` (package-files.ts decides, refusing anything that
 * resolves outside the package). Links inside the package are installed as the files they name.
 */
import { chmod, copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ExtensionManifest } from './manifest.ts';
import { packageSumsFile, selectPackageFiles } from './package-files.ts';
import type { Platform } from './platform.ts';
import { checkSums } from './sums.ts';

/** What {@link stagePackage} produced. */
export interface StagedPackage {
  /** The staging directory (the future `extensions/<id>/`). */
  dir: string;
  /** Absolute path of the artifact in the staging directory. */
  artifact: string;
  /** `<os>-<arch>` when a per-platform executable was vendored. */
  platform?: string;
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
  const sums = await packageSumsFile(selection.root, manifest);
  if (sums !== undefined) await checkSums(await readFile(sums, 'utf8'), selection.files, where);
  await mkdir(stagingDir, { recursive: true });
  for (const file of selection.files) {
    const target = join(stagingDir, ...file.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file.source, target);
    await chmod(target, file.executable ? 0o755 : 0o644);
  }
  return { dir: stagingDir, artifact: join(stagingDir, manifest.entry), ...(selection.platform ? { platform: selection.platform } : {}) };
}
