/**
 * Brings an install source onto disk as a package directory: a local directory is used as it
 * is, a git source is cloned into the work directory, an archive is hash-checked (before any
 * byte is extracted) and extracted safely. Nothing here touches the installed extensions.
 */
import { mkdir, readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { extractEntries } from './archive/extract.ts';
import { readTarGz } from './archive/tar.ts';
import { readZip } from './archive/zip.ts';
import { cloneAt } from './git.ts';
import { sha256Bytes } from './integrity.ts';
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

async function readArchive(source: Extract<InstallSource, { kind: 'archive' }>): Promise<Uint8Array> {
  if ('path' in source.location) {
    try {
      return new Uint8Array(await readFile(source.location.path));
    } catch (error) {
      throw new MepError(LocalErrorCode.Usage, `Cannot read the archive ${source.location.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Check the path.`, {
        data: { source: source.spec },
      });
    }
  }
  let response: Response;
  try {
    response = await fetch(source.location.url, { redirect: 'follow' });
  } catch (error) {
    throw registryError(`Cannot download ${source.location.url}: ${(error as Error).message}. Check the URL and the network, or download it and install the file.`, {
      source: source.spec,
      reason: 'download',
    });
  }
  if (!response.ok) throw registryError(`Downloading ${source.location.url} failed with HTTP ${response.status}. Check the URL.`, { source: source.spec, reason: 'download', status: response.status });
  return new Uint8Array(await response.arrayBuffer());
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
 * Materializes `source` under `work` (an empty scratch directory the caller removes).
 *
 * @example
 * const pkg = await fetchPackage(parseInstallSource(spec, cwd), scratch);
 */
export async function fetchPackage(source: InstallSource, work: string): Promise<FetchedPackage> {
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
    const commit = await cloneAt(source.url, source.ref, clone, source.spec);
    if (!source.subdir) return { dir: clone, commit };
    const dir = join(clone, source.subdir);
    const real = await realpath(dir).catch(() => undefined);
    const realClone = await realpath(clone);
    if (real === undefined || !(await isDirectory(real)) || !(real === realClone || real.startsWith(realClone + sep))) {
      throw registryError(`The repository ${source.url} at ${commit.slice(0, 12)} has no directory ${source.subdir}. Check the //subdir part of ${source.spec}.`, {
        source: source.spec,
        reason: 'no-subdir',
      });
    }
    return { dir: real, commit };
  }
  const bytes = await readArchive(source);
  if (source.sha256) {
    // Checked before anything is extracted (packaging spec: "checked against the download").
    const actual = sha256Bytes(bytes);
    if (actual !== source.sha256) {
      throw registryError(`The archive ${source.spec} has sha256 ${actual}, not the expected ${source.sha256}. Nothing was extracted; check the URL and the SHA256SUMS you copied.`, {
        source: source.spec,
        expected: source.sha256,
        actual,
        reason: 'hash-mismatch',
      });
    }
  }
  const entries = source.format === 'zip' ? readZip(bytes, source.spec) : readTarGz(bytes, source.spec);
  const extracted = join(work, 'archive');
  await mkdir(extracted);
  await extractEntries(entries, extracted, source.spec);
  return { dir: await packageRootOf(extracted, source.spec) };
}
