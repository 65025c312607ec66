/**
 * Brings an install source onto disk as a package directory: a local directory is used as it
 * is, a git source is cloned into the work directory, an archive is hash-checked (before any
 * byte is extracted) and extracted safely. Nothing here touches the installed extensions.
 */
import { mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isWithin } from '../files/path-within.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { ArchiveLimits } from './archive/budget.ts';
import { extractArchive } from './archive/extract.ts';
import { copyArchive } from './archive-file.ts';
import { cloneAt } from './git.ts';
import type { InstallSource } from './install-source.ts';
import { MANIFEST_FILE } from './manifest.ts';

/** A package directory ready to be read and copied. */
export interface FetchedPackage {
  /** The directory holding `extension.json`. */
  dir: string;
  /** The commit checked out (git sources only). */
  commit?: string;
}

function registryError(message: string, data: Record<string, unknown>): MepError {
  return new MepError(LocalErrorCode.Registry, message, { data });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The archive root, or its single top-level directory, whichever holds the manifest. */
async function packageRootOf(extracted: string, spec: string): Promise<string> {
  if (await stat(join(extracted, MANIFEST_FILE)).catch(() => undefined)) return extracted;
  const names = (await readdir(extracted)).filter((n) => n !== '__MACOSX');
  if (names.length === 1 && (await isDirectory(join(extracted, names[0] as string)))) {
    const top = join(extracted, names[0] as string);
    if (await stat(join(top, MANIFEST_FILE)).catch(() => undefined)) return top;
  }
  throw registryError(`The archive ${spec} has no ${MANIFEST_FILE} at its root or in its single top-level directory. Package the extension directory itself.`, {
    source: spec,
    reason: 'no-manifest',
  });
}

/**
 * Materializes `source` under `work` (an empty scratch directory the caller removes); an
 * archive is copied and extracted within `limits`.
 *
 * @example
 * const pkg = await fetchPackage(parseInstallSource(spec, cwd), scratch, archiveLimitsOf());
 */
export async function fetchPackage(source: InstallSource, work: string, limits: Readonly<ArchiveLimits>): Promise<FetchedPackage> {
  if (source.kind === 'directory') {
    if (!(await isDirectory(source.path))) {
      throw new MepError(LocalErrorCode.Usage, `No package directory at ${source.path}; pass a directory with ${MANIFEST_FILE}, a git URL or a .tar.gz/.tgz/.zip archive.`, {
        data: { source: source.spec },
      });
    }
    return { dir: source.path };
  }
  if (source.kind === 'git') {
    const clone = join(work, 'git');
    const commit = await cloneAt(source.url, source.ref, clone, source.spec, limits);
    if (!source.subdir) return { dir: clone, commit };
    const dir = join(clone, source.subdir);
    const real = await realpath(dir).catch(() => undefined);
    const realClone = await realpath(clone);
    if (real === undefined || !(await isDirectory(real)) || !isWithin(real, realClone)) {
      throw registryError(`The repository ${source.url} at ${commit.slice(0, 12)} has no directory ${source.subdir}. Check the //subdir part of ${source.spec}.`, {
        source: source.spec,
        reason: 'no-subdir',
      });
    }
    return { dir: real, commit };
  }
  const file = join(work, 'archive.bin');
  const actual = await copyArchive(source, file, limits);
  if (source.sha256 && actual !== source.sha256) {
    // Checked before anything is extracted (packaging spec: "checked against the download").
    throw registryError(`The archive ${source.spec} has sha256 ${actual}, not the expected ${source.sha256}. Nothing was extracted; check the URL and the SHA256SUMS you copied.`, {
      source: source.spec,
      expected: source.sha256,
      actual,
      reason: 'hash-mismatch',
    });
  }
  const extracted = join(work, 'archive');
  await mkdir(extracted);
  await extractArchive({ file, format: source.format, root: extracted, archive: source.spec, limits });
  return { dir: await packageRootOf(extracted, source.spec) };
}
