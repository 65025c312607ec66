/**
 * Fetches one file of Debian's archive, pinned by its sha256, for the engine build: the `qjs-src`
 * package that carries quickjs-ng's C sources.
 *
 * A pool file of Debian testing or backports is removed when a newer version of its package
 * reaches that suite, so one address is not enough. The file is looked for, in this order:
 *
 * 1. the cache folder (a copy fetched before, checked again);
 * 2. `MEP_QUICKJS_DEB`, a path to a copy the user has (an offline machine, a local mirror);
 * 3. the pool of each Debian mirror: `MEP_DEBIAN_MIRROR` if set, then deb.debian.org;
 * 4. snapshot.debian.org, which keeps every file Debian ever published, addressed by its sha1:
 *    the same bytes after the pool has moved on.
 *
 * Whatever the source, the bytes must have the pinned size and sha256, so every way yields the
 * same engine. When all fail, the error lists each address tried and what to do.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';

/** One file of Debian's archive, as its Packages index describes it. */
export interface DebianPin {
  /** Binary package and version, for messages (`qjs-src 0.17.0-1`). */
  package: string;
  version: string;
  /** The suites whose Packages index listed it when it was pinned (for messages). */
  suites: readonly string[];
  /** `Filename` in the Packages index, relative to a mirror's root. */
  filename: string;
  /** `Size` and `SHA256` in the Packages index. */
  size: number;
  sha256: string;
  /** The file's sha1, which snapshot.debian.org addresses files by. */
  sha1: string;
}

/** The environment variable naming a local copy of the pinned .deb. */
export const LOCAL_DEB_ENV = 'MEP_QUICKJS_DEB';
/** The environment variable naming a Debian mirror tried before deb.debian.org. */
export const MIRROR_ENV = 'MEP_DEBIAN_MIRROR';

const DEFAULT_MIRROR = 'https://deb.debian.org/debian';
const SNAPSHOT = 'https://snapshot.debian.org';
const FETCH_TIMEOUT_MS = 60_000;

/** The addresses tried for `pin`, in order (mirrors, then snapshot.debian.org by sha1). */
export function debianUrls(pin: DebianPin, env: NodeJS.ProcessEnv = process.env): string[] {
  const mirrors = [env[MIRROR_ENV], DEFAULT_MIRROR].filter((m): m is string => typeof m === 'string' && m.length > 0);
  const pool = [...new Set(mirrors.map((m) => m.replace(/\/+$/, '')))].map((m) => `${m}/${pin.filename}`);
  return [...pool, `${SNAPSHOT}/file/${pin.sha1}`];
}

/** Why `bytes` are not the pinned file, or null when they are. */
export function pinMismatch(pin: DebianPin, bytes: Uint8Array): string | null {
  if (bytes.length !== pin.size) return `${bytes.length} bytes, expected ${pin.size}`;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return sha256 === pin.sha256 ? null : `sha256 ${sha256}, expected ${pin.sha256}`;
}

function baseName(pin: DebianPin): string {
  return pin.filename.slice(pin.filename.lastIndexOf('/') + 1);
}

async function download(url: string): Promise<Uint8Array> {
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Options of {@link ensureDebianFile}; the defaults are the real network and environment. */
export interface DebianFileOptions {
  env?: NodeJS.ProcessEnv;
  /** Replaces the HTTP GET (tests use it to play a pool file that disappeared). */
  download?: (url: string) => Promise<Uint8Array>;
}

/**
 * Returns the path of the pinned file in `cacheDir`, fetching it the first time. Throws
 * `MepError` `ERR_BUILD` naming every place tried when none has the pinned bytes.
 */
export async function ensureDebianFile(pin: DebianPin, cacheDir: string, options: DebianFileOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const get = options.download ?? download;
  const target = join(cacheDir, baseName(pin));
  if (existsSync(target) && pinMismatch(pin, readFileSync(target)) === null) return target;
  mkdirSync(cacheDir, { recursive: true });

  const tried: string[] = [];
  const keep = (bytes: Uint8Array): string => {
    const tmp = `${target}.tmp-${process.pid}`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, target);
    return target;
  };
  const local = env[LOCAL_DEB_ENV];
  if (local) {
    if (!existsSync(local)) tried.push(`${LOCAL_DEB_ENV}=${local}: no such file`);
    else {
      const bytes = readFileSync(local);
      const bad = pinMismatch(pin, bytes);
      if (bad === null) return keep(bytes);
      tried.push(`${LOCAL_DEB_ENV}=${local}: ${bad}`);
    }
  }
  for (const url of debianUrls(pin, env)) {
    let bytes: Uint8Array;
    try {
      bytes = await get(url);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      tried.push(`${url}: ${error instanceof Error ? error.message : String(error)}${cause ? ` (${cause})` : ''}`);
      continue;
    }
    const bad = pinMismatch(pin, bytes);
    if (bad === null) return keep(bytes);
    tried.push(`${url}: ${bad}`);
  }
  rmSync(`${target}.tmp-${process.pid}`, { force: true });
  throw new MepError(
    LocalErrorCode.Build,
    `cannot fetch ${pin.package} ${pin.version} (${baseName(pin)}, sha256 ${pin.sha256}; Debian ${pin.suites.join(', ')}), the guest engine's C sources. ` +
      `Tried: ${tried.join('; ')}. Either the network cannot reach Debian's archive, or the pool dropped this version and snapshot.debian.org is out of reach: ` +
      `put a copy of that file (any mirror or snapshot has it; the sha256 is checked) at ${target} or name it with ${LOCAL_DEB_ENV}=/path, ` +
      `or set ${MIRROR_ENV} to a mirror that still has it.`,
    { data: { package: pin.package, version: pin.version, sha256: pin.sha256, tried } },
  );
}
