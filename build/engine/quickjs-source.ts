/**
 * Fetches the QuickJS 2021-03-27 C sources from the npm registry (`npm pack qjsc@0.3.0`),
 * verifies the tarball against a pinned sha512 integrity and extracts only
 * `deps/quickjs_2021_03_27/`. The package's install scripts never run (npm pack does not run
 * lifecycle scripts of registry packages, and --ignore-scripts makes that explicit), then
 * applies the engine's few edits ({@link QUICKJS_PATCHES}).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { QUICKJS_PATCHES, QUICKJS_SOURCES, type QuickjsPatch } from './patches/index.ts';

export { QUICKJS_PATCHES, QUICKJS_SOURCES, type QuickjsPatch };

/** The registry package that carries the QuickJS sources, pinned exactly. */
export const QUICKJS_PACKAGE = 'qjsc@0.3.0';
/** `npm view qjsc@0.3.0 dist.integrity`. */
export const QUICKJS_INTEGRITY =
  'sha512-a7+cU6/IVcZbIejffdt/wZVMX6LL2MDL3HQ9Zb5Gm23G9DvBMS/z9GHFxz39bAvp2PvMOM+ypSOAyokt2DdZ2w==';
/** The folder inside the tarball that holds QuickJS. */
const QUICKJS_DIR_IN_TARBALL = 'package/deps/quickjs_2021_03_27';
/** Applies `patches` to the QuickJS sources in `dir`, or throws a build error naming the edit that no longer fits. */
export function applyQuickjsPatches(dir: string, patches: readonly QuickjsPatch[] = QUICKJS_PATCHES): void {
  for (const patch of patches) {
    const file = join(dir, patch.file);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(patch.find);
    if (at < 0 || text.indexOf(patch.find, at + 1) >= 0) {
      throw buildError(`cannot apply the engine's edit to ${patch.file} (${patch.why.split(':')[0]}): the text it replaces is not there exactly once. The QuickJS sources changed; update QUICKJS_PATCHES in build/engine/patches/.`);
    }
    writeFileSync(file, text.slice(0, at) + patch.replace + text.slice(at + patch.find.length));
  }
}

/** Names the sources the engine compiles: the tarball's integrity and the engine's edits. */
export const QUICKJS_SOURCE_KEY = `${QUICKJS_INTEGRITY} ${createHash('sha256').update(JSON.stringify(QUICKJS_PATCHES)).digest('hex').slice(0, 16)}`;

function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

function buildError(message: string, cause?: unknown): MepError {
  return new MepError(LocalErrorCode.Build, message, { cause });
}

/**
 * Returns the folder holding the verified QuickJS sources under `cacheDir`, downloading and
 * extracting them the first time.
 */
export function ensureQuickjsSource(cacheDir: string): string {
  const srcDir = join(cacheDir, 'quickjs-2021-03-27');
  const marker = join(srcDir, '.integrity');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === QUICKJS_SOURCE_KEY) return srcDir;

  mkdirSync(cacheDir, { recursive: true });
  const tarball = join(cacheDir, 'qjsc-0.3.0.tgz');
  if (!existsSync(tarball) || integrityOf(tarball) !== QUICKJS_INTEGRITY) {
    try {
      execFileSync('npm', ['pack', QUICKJS_PACKAGE, '--ignore-scripts', '--silent', '--pack-destination', cacheDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
      throw buildError(`cannot fetch ${QUICKJS_PACKAGE} from the npm registry (needed for the QuickJS sources): ${stderr || String(e)}. Check network access to the registry and retry.`, e);
    }
  }
  const actual = integrityOf(tarball);
  if (actual !== QUICKJS_INTEGRITY) {
    rmSync(tarball, { force: true });
    throw buildError(`the ${QUICKJS_PACKAGE} tarball failed its integrity check (expected ${QUICKJS_INTEGRITY}, got ${actual}); it was deleted. Retry; if it persists the registry served different content.`);
  }

  const staging = join(cacheDir, `extract-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', staging, '--strip-components=3', QUICKJS_DIR_IN_TARBALL], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw buildError(`cannot extract ${QUICKJS_DIR_IN_TARBALL} from ${tarball}: ${String(e)}`, e);
  }
  const present = new Set(readdirSync(staging));
  const absent = QUICKJS_SOURCES.filter((f) => !present.has(f));
  if (absent.length > 0) throw buildError(`the ${QUICKJS_PACKAGE} tarball lacks ${absent.join(', ')}`);
  try {
    applyQuickjsPatches(staging);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  writeFileSync(join(staging, '.integrity'), QUICKJS_SOURCE_KEY);
  rmSync(srcDir, { recursive: true, force: true });
  renameSync(staging, srcDir);
  return srcDir;
}
