/**
 * The guest engine's C sources: quickjs-ng, from Debian's `qjs-src` package (the quickjs-ng
 * source package's binary package of C sources, installed under /usr/src/quickjs-ng). The .deb
 * is fetched by its pinned sha256 ({@link QUICKJS_DEB}; fallbacks in ./debian-file.ts), unpacked,
 * and the engine's edits ({@link QUICKJS_PATCHES}) applied to the files it compiles.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { ensureDebianFile, type DebianFileOptions, type DebianPin } from './debian-file.ts';
import { extractDeb } from './internal/deb-archive.ts';
import { applyQuickjsPatches as applyPatches } from './patches/apply.ts';
import { QUICKJS_PATCHES, QUICKJS_SOURCES, type QuickjsPatch } from './patches/index.ts';

export { QUICKJS_PATCHES, QUICKJS_SOURCES, type QuickjsPatch };

/** The engine's version, as the sandbox reports it (`QJS_VERSION` in quickjs.h). */
export const QUICKJS_VERSION = 'quickjs-ng 0.17.0';

/**
 * `qjs-src` 0.17.0-1 as Debian testing's Packages index lists it (2026-12-01). When testing
 * moves to a newer quickjs-ng this pool file goes; snapshot.debian.org keeps it by its sha1.
 */
export const QUICKJS_DEB: DebianPin = {
  package: 'qjs-src',
  version: '0.17.0-1',
  suites: ['testing (forky)', 'sid'],
  filename: 'pool/main/q/quickjs-ng/qjs-src_0.17.0-1_all.deb',
  size: 452352,
  sha256: '04631979bdadaccffd76c1cb0aff5d07389aa889a90b6a902eba858a3a3b3988',
  sha1: '4c8cd4424cda5bfa4f16c6274ffe767a57b2e14e',
};

/** Where the package installs the sources. */
const SOURCE_DIR_IN_DEB = join('usr', 'src', 'quickjs-ng');
/** quickjs-ng's OS library: not in the wasm engine, only in the native build beside it (native.ts). */
export const QUICKJS_LIBC = 'quickjs-libc.c';
/** What the engine takes from there: the C files and every header. */
const TAKEN = (name: string): boolean => name.endsWith('.h') || name === QUICKJS_LIBC || (QUICKJS_SOURCES as readonly string[]).includes(name);

/** Applies `patches` to the QuickJS sources in `dir`, or throws a build error naming the edit that no longer fits. */
export function applyQuickjsPatches(dir: string, patches: readonly QuickjsPatch[] = QUICKJS_PATCHES): void {
  applyPatches(dir, patches);
}

/** Names the sources the engine compiles: the package's sha256 and the engine's edits. */
export const QUICKJS_SOURCE_KEY = sourceKey(QUICKJS_PATCHES);

/** The cache key of the sources with `patches` applied. */
export function sourceKey(patches: readonly QuickjsPatch[]): string {
  return `${QUICKJS_DEB.sha256} ${createHash('sha256').update(JSON.stringify([QUICKJS_LIBC, patches])).digest('hex').slice(0, 16)}`;
}

function buildError(message: string, cause?: unknown): MepError {
  return new MepError(LocalErrorCode.Build, message, { cause });
}

/** Options of {@link ensureQuickjsSource}. */
export interface QuickjsSourceOptions extends DebianFileOptions {
  /** The edits to apply (default {@link QUICKJS_PATCHES}); a different list gets its own folder. */
  patches?: readonly QuickjsPatch[];
}

/**
 * Returns the folder under `cacheDir` holding the verified, edited quickjs-ng sources, fetching
 * and unpacking them the first time.
 */
export async function ensureQuickjsSource(cacheDir: string, options: QuickjsSourceOptions = {}): Promise<string> {
  const patches = options.patches ?? QUICKJS_PATCHES;
  const key = sourceKey(patches);
  const srcDir = join(cacheDir, `quickjs-ng-${key.split(' ')[1]}`);
  const marker = join(srcDir, '.integrity');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === key) return srcDir;

  const deb = await ensureDebianFile(QUICKJS_DEB, cacheDir, options);
  mkdirSync(cacheDir, { recursive: true });
  const staging = join(cacheDir, `extract-${process.pid}-${Date.now()}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const unpacked = join(staging, 'deb');
    mkdirSync(unpacked);
    try {
      extractDeb(deb, unpacked);
    } catch (e) {
      const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
      throw buildError(`cannot unpack ${deb}: ${stderr || String(e)}`, e);
    }
    const from = join(unpacked, SOURCE_DIR_IN_DEB);
    const present = existsSync(from) ? readdirSync(from) : [];
    const absent = QUICKJS_SOURCES.filter((f) => !present.includes(f));
    if (absent.length > 0) throw buildError(`${QUICKJS_DEB.package} ${QUICKJS_DEB.version} lacks ${absent.join(', ')} under /${SOURCE_DIR_IN_DEB}`);
    const out = join(staging, 'src');
    mkdirSync(out);
    for (const name of present.filter(TAKEN)) writeFileSync(join(out, name), readFileSync(join(from, name)));
    applyPatches(out, patches);
    writeFileSync(join(out, '.integrity'), key);
    rmSync(srcDir, { recursive: true, force: true });
    renameSync(out, srcDir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return srcDir;
}
