/**
 * `mep pack`: a package directory to one release archive, `<id>-<version>.tgz`, holding under
 * its single top-level directory `<id>-<version>/` exactly what install takes
 * (`extension.json`, the entry and every `<entry>-<os>-<arch>` beside it, the manifest's
 * `files`) plus `SHA256SUMS` over them. The archive is deterministic (sorted members, one fixed
 * mtime, no owners), so the same package gives the same bytes and the same sha256, which is
 * what `mep install <archive>#sha256=<hex>` pins.
 */
import { staleSources } from './build-record.ts';
import { stat } from 'node:fs/promises';
import { posix, resolve } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { writeTarGz } from './archive/tar-write.ts';
import { replaceAtomically } from './atomic-write.ts';
import type { TarMember } from './archive/tar-write.ts';
import type { ExtensionId } from './extension-id.ts';
import { sha256File } from './integrity.ts';
import { entryOf, readManifest } from './manifest.ts';
import { selectPackageFiles } from './package-files.ts';
import { SUMS_FILE, formatSums, sumsCountError } from './sums.ts';

/** Options of {@link packExtension}. */
export interface PackOptions {
  /** The package directory (holding `extension.json`). */
  dir: string;
  /** The archive to write. Default `<id>-<version>.tgz`; relative to `cwd`. */
  out?: string;
  /** Where relative paths resolve. Default `process.cwd()`. */
  cwd?: string;
}

/** What {@link packExtension} wrote. */
export interface PackResult {
  id: ExtensionId;
  version: string;
  /** Absolute path of the archive. */
  file: string;
  /** Lowercase hex sha256 of the archive: the `#sha256=` of its install source. */
  sha256: string;
  /** Size of the archive in bytes. */
  bytes: number;
  /** The package's files in the archive (relative to its top directory), `SHA256SUMS` included. */
  files: string[];
}

// A version names a file and a directory of the archive: one plain segment.
const PLAIN_VERSION = /^[A-Za-z0-9][A-Za-z0-9.+_-]*$/;

/** Every directory above `path`, outermost first. */
function parents(path: string): string[] {
  const out: string[] = [];
  for (let dir = posix.dirname(path); dir !== '.'; dir = posix.dirname(dir)) out.unshift(dir);
  return out;
}

/**
 * Packs the package in `options.dir`. Refuses (MepError ERR_REGISTRY) what install would refuse:
 * an invalid manifest, a missing entry, a path resolving outside the package.
 *
 * @example
 * const { file, sha256 } = await packExtension({ dir: '.' });
 * // mep install ./acme.crm-1.2.0.tgz#sha256=<sha256>
 */
export async function packExtension(options: PackOptions): Promise<PackResult> {
  const manifest = await readManifest(resolve(options.cwd ?? process.cwd(), options.dir));
  if (!PLAIN_VERSION.test(manifest.version)) {
    throw new MepError(LocalErrorCode.Registry, `Cannot pack '${manifest.id}': its version ${JSON.stringify(manifest.version)} is not a plain version such as 1.2.0 (it names the archive). Fix "version" in extension.json.`, {
      data: { extension: manifest.id, version: manifest.version, reason: 'bad-version' },
    });
  }
  const packageDir = resolve(options.cwd ?? process.cwd(), options.dir);
  // A build that recorded its sources (mep build) and is older than them is not packed.
  const stale = staleSources(resolve(packageDir, entryOf(manifest)), options.cwd ?? process.cwd());
  if (stale.length > 0) {
    throw new MepError(
      LocalErrorCode.Registry,
      `Cannot pack '${manifest.id}': ${manifest.entry} is older than its sources (${stale.slice(0, 5).join(', ')}${stale.length > 5 ? `, and ${stale.length - 5} more` : ''} changed since it was built). Rebuild it with 'mep build' in ${packageDir} (it builds what extension.json names), then pack again.`,
      { data: { extension: manifest.id, reason: 'stale-build', entry: manifest.entry, changed: stale } },
    );
  }
  const selection = await selectPackageFiles(packageDir, manifest, 'all');
  const top = `${manifest.id}-${manifest.version}`;
  const file = resolve(options.cwd ?? process.cwd(), options.out ?? `${top}.tgz`);
  if (selection.files.length > HOST_FILE_LIMITS.sumsEntries) throw sumsCountError(packageDir, true);
  const lines = [];
  const sizes = new Map<string, number>();
  for (const f of selection.files) {
    lines.push({ path: f.path, sha256: await sha256File(f.source) });
    sizes.set(f.path, (await stat(f.source)).size);
  }
  const sums = new TextEncoder().encode(formatSums(lines));
  const paths = [...selection.files.map((f) => f.path), SUMS_FILE].sort();
  const directories = [...new Set(paths.flatMap(parents))];
  const members: TarMember[] = [{ type: 'directory', path: top }];
  for (const path of [...directories.map((d) => `${d}/`), ...paths].sort()) {
    if (path.endsWith('/')) {
      members.push({ type: 'directory', path: `${top}/${path.slice(0, -1)}` });
      continue;
    }
    const f = selection.files.find((x) => x.path === path);
    if (f === undefined) members.push({ type: 'file', path: `${top}/${path}`, executable: false, data: sums });
    else members.push({ type: 'file', path: `${top}/${path}`, executable: f.executable, size: sizes.get(path) as number, source: f.source });
  }
  // Written beside the target and renamed, so a failed pack never leaves half an archive.
  await replaceAtomically(file, (temp) => writeTarGz(temp, members));
  return { id: manifest.id, version: manifest.version, file, sha256: await sha256File(file), bytes: (await stat(file)).size, files: paths };
}
