/**
 * Per-platform process executables: beside the plain `entry`, a package may carry
 * `<entry>-<os>-<arch>` (`…-windows-amd64.exe` on Windows) with Go's names for the operating
 * system (linux, darwin, windows) and architecture (amd64, arm64). Install vendors only the one
 * for this host.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** An operating system and architecture in Go's spelling. */
export interface Platform {
  os: string;
  arch: string;
}

const GO_OS: Record<string, string> = { linux: 'linux', darwin: 'darwin', win32: 'windows', freebsd: 'freebsd', openbsd: 'openbsd' };
const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm', riscv64: 'riscv64', ppc64: 'ppc64le', s390x: 's390x' };

/** This host's platform in Go's spelling (`linux`/`amd64`, `darwin`/`arm64`, `windows`/`amd64`). */
export function hostPlatform(nodePlatform: string = process.platform, nodeArch: string = process.arch): Platform {
  return { os: GO_OS[nodePlatform] ?? nodePlatform, arch: GO_ARCH[nodeArch] ?? nodeArch };
}

/** `<entry>-<os>-<arch>`, plus `.exe` on Windows. */
export function platformFileName(entry: string, platform: Platform): string {
  return `${entry}-${platform.os}-${platform.arch}${platform.os === 'windows' ? '.exe' : ''}`;
}

/** The executable to vendor and, when it was a per-platform file, its `<os>-<arch>`. */
export interface PlatformArtifact {
  /** Absolute path of the chosen file in the package. */
  file: string;
  /** `<os>-<arch>` when a per-platform file was chosen. */
  platform?: string;
  /** Every per-platform file beside the entry (absolute paths), which install leaves out. */
  siblings: string[];
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The per-platform files beside `entryPath` (absolute), with the `<os>-<arch>` each provides. */
export async function platformSiblings(entryPath: string): Promise<{ file: string; platform: string }[]> {
  const stem = basename(entryPath);
  let names: string[];
  try {
    names = await readdir(dirname(entryPath));
  } catch {
    return [];
  }
  const escaped = stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped}-([a-z0-9]+)-([a-z0-9]+)(?:\\.exe)?$`);
  return names.flatMap((name) => {
    const match = pattern.exec(name);
    return match ? [{ file: join(dirname(entryPath), name), platform: `${match[1]}-${match[2]}` }] : [];
  });
}

/**
 * Picks the executable for `platform`: the plain entry when present, else
 * `<entry>-<os>-<arch>`. Throws MepError(ERR_REGISTRY, `data.reason: 'platform'`) listing the
 * platforms the package provides when neither exists.
 */
export async function resolvePlatformArtifact(packageDir: string, entry: string, extension: string, platform: Platform = hostPlatform()): Promise<PlatformArtifact> {
  const plain = join(packageDir, entry);
  const siblings = await platformSiblings(plain);
  if (await isFile(plain)) return { file: plain, siblings: siblings.map((s) => s.file) };
  const wanted = platformFileName(plain, platform);
  if (await isFile(wanted)) return { file: wanted, platform: `${platform.os}-${platform.arch}`, siblings: siblings.map((s) => s.file) };
  const provided = siblings.map((s) => s.platform).sort();
  throw new MepError(
    LocalErrorCode.Registry,
    provided.length === 0
      ? `Extension '${extension}' has no executable ${entry} (nor ${basename(wanted)}) in ${packageDir}. Check the manifest's "entry".`
      : `Extension '${extension}' provides no executable for ${platform.os}-${platform.arch}; the package provides: ${provided.join(', ')}. Install a release built for this platform.`,
    { data: { extension, entry, host: `${platform.os}-${platform.arch}`, provided, reason: 'platform' } },
  );
}
