/**
 * Where this `mep` was installed from, as an npm spec a new project can depend on: `mep init`
 * writes it into the project's package.json so the printed `npm install` fetches the very
 * mep-runtime that scaffolded it — from the registry, a packed tarball or a folder — instead of
 * assuming the registry (which 404s for a build that was never published).
 *
 * npm records what it installed: the lock of the project (or of npx's cache folder) that holds
 * `node_modules/mep-runtime` names its `resolved` source, and that project's package.json the
 * spec it asked for. A mep-runtime outside any node_modules is a folder (a checkout, `npm link`).
 */
import { existsSync, realpathSync } from 'node:fs';
import { parseJson } from '../../protocol/json-parse.ts';
import { HOST_FILE_LIMITS } from '../../protocol/limits.ts';
import { readRegularFileSync } from '../../files/regular-file.ts';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How this mep-runtime came to be here, and the spec that gets it again. */
export interface OwnInstall {
  /** The npm spec for a project's devDependencies: `^0.1.0`, or `file:/abs/mep-runtime-0.1.0.tgz`. */
  spec: string;
  /** What the spec was learnt from. */
  source: 'registry' | 'tarball' | 'folder' | 'default';
  /** Why the default was used, when it was (shown to the user). */
  note?: string;
}

const PACKAGE_NAME = 'mep-runtime';

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return parseJson(readRegularFileSync(path, { what: 'the package.json', maxBytes: HOST_FILE_LIMITS.smallFileBytes }).toString('utf8'), 'data') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The root of the mep-runtime package this module belongs to (its package.json names it). */
export function ownPackageRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (readJson(join(dir, 'package.json'))?.name === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A `file:` spec with its path made absolute from `base` (npm writes them relative to the project). */
function absoluteFileSpec(spec: string, base: string): string {
  const path = spec.slice('file:'.length);
  return `file:${isAbsolute(path) ? path : resolve(base, path)}`;
}

/** What the lock and package.json of the project at `root` say about the copy at `key`. */
function fromProject(root: string, key: string, version: string): OwnInstall | undefined {
  for (const lock of [join(root, 'node_modules', '.package-lock.json'), join(root, 'package-lock.json'), join(root, 'npm-shrinkwrap.json')]) {
    const entry = (readJson(lock)?.packages as Record<string, { resolved?: unknown; link?: unknown }> | undefined)?.[key];
    const resolved = typeof entry?.resolved === 'string' ? entry.resolved : undefined;
    if (resolved === undefined) continue;
    if (resolved.startsWith('file:') || entry?.link === true) {
      const spec = absoluteFileSpec(resolved.startsWith('file:') ? resolved : `file:${resolved}`, root);
      return { spec, source: /\.(tgz|tar\.gz)$/.test(spec) ? 'tarball' : 'folder' };
    }
    if (/^https?:/.test(resolved)) return { spec: `^${version}`, source: 'registry' };
  }
  const pkg = readJson(join(root, 'package.json'));
  for (const field of ['devDependencies', 'dependencies', 'optionalDependencies']) {
    const spec = (pkg?.[field] as Record<string, unknown> | undefined)?.[PACKAGE_NAME];
    if (typeof spec !== 'string') continue;
    if (spec.startsWith('file:')) return { spec: absoluteFileSpec(spec, root), source: /\.(tgz|tar\.gz)$/.test(spec) ? 'tarball' : 'folder' };
    return { spec, source: 'registry' };
  }
  return undefined;
}

/**
 * The spec this mep-runtime was installed with; `^<version>` (the registry) when it cannot tell,
 * with a note saying why (a checkout without `npm run build` cannot be installed from).
 */
export function ownInstall(version: string, packageRoot: string | undefined = ownPackageRoot()): OwnInstall {
  const fallback = (note: string): OwnInstall => ({ spec: `^${version}`, source: 'default', note });
  if (packageRoot === undefined) return fallback('mep could not find its own package.json');
  const real = realpathSync(packageRoot);
  const parts = real.split(sep);
  const modules = parts.indexOf('node_modules');
  if (modules < 0) {
    // A folder of its own: a checkout (or npm link). It installs only once built.
    if (existsSync(join(real, 'dist', 'host', 'src', 'index.js'))) return { spec: `file:${real}`, source: 'folder' };
    return fallback(`this mep runs from ${real}, which has no dist/ to install (run npm pack there and pass --mep-runtime file:<the .tgz>)`);
  }
  const root = parts.slice(0, modules).join(sep) || sep;
  const key = relative(root, real).split(sep).join('/');
  return fromProject(root, key, version) ?? fallback(`npm recorded no source for ${real} in ${root}`);
}
