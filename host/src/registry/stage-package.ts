/**
 * Copies a fetched package into a staging directory the way it will be installed: every file
 * except `.git` and the other platforms' executables, with this host's executable vendored
 * under the plain `entry` name. Symlinks are copied as the files they point to and refused when
 * they point outside the package.
 */
import { chmod, copyFile, lstat, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { ExtensionManifest } from './manifest.ts';
import { resolvePlatformArtifact } from './platform.ts';
import type { Platform } from './platform.ts';

/** What {@link stagePackage} produced. */
export interface StagedPackage {
  /** The staging directory (the future `extensions/<id>/`). */
  dir: string;
  /** Absolute path of the artifact in the staging directory. */
  artifact: string;
  /** `<os>-<arch>` when a per-platform executable was vendored. */
  platform?: string;
}

async function copyTree(from: string, to: string, root: string, skip: ReadonlySet<string>): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await readdir(from)) {
    const source = join(from, name);
    if (skip.has(source) || name === '.git') continue;
    const target = join(to, name);
    const info = await lstat(source);
    let real = source;
    if (info.isSymbolicLink()) {
      real = await realpath(source).catch(() => '');
      if (real === '' || !(real === root || real.startsWith(root + sep))) {
        throw new MepError(LocalErrorCode.Registry, `Refusing the package: ${relative(root, source)} is a symlink pointing outside the package (or nowhere). Replace it with the file itself.`, {
          data: { entry: relative(root, source), reason: 'unsafe-entry' },
        });
      }
    }
    const resolved = await stat(real);
    if (resolved.isDirectory()) await copyTree(real, target, root, skip);
    else if (resolved.isFile()) await copyFile(real, target);
  }
}

/**
 * Stages `packageDir` into `stagingDir` (which must not exist) for `manifest`, choosing the
 * process executable for `platform`.
 *
 * @example
 * const staged = await stagePackage(pkg.dir, manifest, join(scratch, 'staged'));
 */
export async function stagePackage(packageDir: string, manifest: ExtensionManifest, stagingDir: string, platform?: Platform): Promise<StagedPackage> {
  const root = await realpath(packageDir);
  const artifact = join(stagingDir, manifest.entry);
  if (manifest.runtime === 'wasm') {
    const file = join(root, manifest.entry);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) {
      throw new MepError(LocalErrorCode.Registry, `Extension '${manifest.id}' has no wasm module ${manifest.entry} in its package. Check the manifest's "entry" or build the module first.`, {
        data: { extension: manifest.id, entry: manifest.entry, reason: 'missing-artifact' },
      });
    }
    await copyTree(root, stagingDir, root, new Set());
    return { dir: stagingDir, artifact };
  }
  const chosen = await resolvePlatformArtifact(root, manifest.entry, manifest.id, platform);
  await copyTree(root, stagingDir, root, new Set([...chosen.siblings, chosen.file]));
  await mkdir(dirname(artifact), { recursive: true });
  await copyFile(chosen.file, artifact);
  await chmod(artifact, 0o755);
  return { dir: stagingDir, artifact, ...(chosen.platform ? { platform: chosen.platform } : {}) };
}
