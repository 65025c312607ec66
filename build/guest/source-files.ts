/**
 * What a build reads of a project is source: regular files of a bounded size. A project (a cloned
 * repository, an unpacked archive) can hold a link to a device or a kernel file (`src/a.ts` →
 * `/dev/zero`, `/proc/self/environ`; git checks links out); esbuild and TypeScript open whatever a
 * path names, so such a link made esbuild read without end (2.7 GB in 18 s, past `mep`'s SIGTERM)
 * or would bundle the builder's environment into the guest.
 *
 * - esbuild resolves a link to its target before loading it, so {@link sourceGuard} refuses
 *   targets under `/dev`, `/proc` and `/sys` by a path filter that esbuild matches itself: files
 *   elsewhere never reach the hook (a hook called for every file costs a watch rebuild about twice
 *   its time: docs/performance-log.md, redteam13).
 * - The type check reads every file it opens through {@link readSourceText}: a regular file (a
 *   FIFO, socket or device anywhere is refused) of at most {@link MAX_SOURCE_FILE_BYTES}.
 * - `mep` stopped by a signal stops esbuild's service with it (cli/signals.ts, bundle.ts's
 *   `stopBundler`).
 */
import type * as esbuild from 'esbuild';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMissingFile, readRegularFileSync } from '../../host/src/files/regular-file.ts';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { MAX_SOURCE_FILE_BYTES, checkFoldersUp, checkPackage, checkProject, checkRegular, isFolder, newProjectScan, realTarget, refusal, type ProjectScan } from './resolver-files.ts';

export { MAX_SOURCE_FILE_BYTES, MAX_PACKAGE_FOLDERS, MAX_PROJECT_FOLDERS } from './resolver-files.ts';

/** mep's own guest PDK (its sources in a checkout, its JavaScript in the package): trusted as the project is. */
const PDK_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'guest-pdk');

/** Paths of the kernel's trees: devices, processes, the system's objects (never a source). */
const SYSTEM_TREES = /^\/(?:dev|proc|sys)(?:\/|$)/;

const escaped = (c: string): string => (/[\\^$.|?*+()[\]{}\-/]/.test(c) ? `\\${c}` : c);

/**
 * A filter (RE2: esbuild matches it itself, with no lookahead) for paths under none of `folders`:
 * one branch per letter of the folders' shared spelling, so a path in a trusted folder never
 * reaches a hook. Null when a folder is too deep to spell (every path is hooked then).
 */
export function outsideFolders(folders: string[]): RegExp | null {
  type Node = { end: boolean; next: Map<string, Node> };
  const root: Node = { end: false, next: new Map() };
  for (const folder of folders) {
    let node = root;
    for (const c of folder.endsWith('/') ? folder : `${folder}/`) {
      if (!node.next.has(c)) node.next.set(c, { end: false, next: new Map() });
      node = node.next.get(c)!;
    }
    node.end = true;
  }
  let depth = 0;
  const spell = (node: Node, level: number): string => {
    depth = Math.max(depth, level);
    const letters = [...node.next.keys()];
    const branches = ['$', `[^${letters.map(escaped).join('')}]`];
    for (const [c, child] of node.next) if (!child.end) branches.push(`${escaped(c)}(?:${spell(child, level + 1)})`);
    return branches.join('|');
  };
  const source = spell(root, 0);
  return depth > 400 ? null : new RegExp(`^(?:${source})`);
}

/** esbuild's loader of a file it would load itself, from the build's `loader` option and its defaults. */
const DEFAULT_LOADERS: Record<string, esbuild.Loader> = { '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx', '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.json': 'json', '.css': 'css', '.txt': 'text' };
const ATTRIBUTE_LOADERS: Record<string, esbuild.Loader> = { json: 'json', text: 'text', bytes: 'binary' };

/** A hook's refusal as esbuild's error; the typed error itself rides along as its `detail`, which the bundle throws as it is ({@link guardRefusal}). */
const asErrors = (error: unknown): esbuild.OnLoadResult => ({ errors: [{ text: error instanceof Error ? error.message : String(error), detail: error instanceof MepError ? error : undefined }] });

/** The guard's typed refusal (ERR_BUILD `not-a-source-file`, ERR_LIMIT) among the errors of a failed build, if any. */
export function guardRefusal(failure: unknown): MepError | undefined {
  const errors = (failure as { errors?: { detail?: unknown }[] } | null)?.errors;
  return Array.isArray(errors) ? (errors.find((m) => m.detail instanceof MepError)?.detail as MepError | undefined) : undefined;
}

/**
 * The project folder of `entry` for the guard: the nearest folder with a package.json from the
 * entry's up to the working folder (when the entry is in it), else the entry's own folder. Never
 * further up: a build run in `/tmp` on `project/main.ts` must not trust, nor walk, all of `/tmp`.
 */
export function projectFolderOf(entry: string, workingFolder: string): string {
  const start = realTarget(dirname(resolve(workingFolder, entry))); // not there: esbuild reports the entry itself
  const stop = realTarget(workingFolder);
  if (start === stop || !start.startsWith(stop.endsWith('/') ? stop : `${stop}/`)) return start;
  for (let at = start; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at;
    if (at === stop) return start;
  }
}

/** An import of a package by name (`pkg`, `@scope/pkg/sub`), not a path nor a scheme (`node:fs`). */
const BARE_NAME = /^[^./][^:]*$/;

/** The folders of node_modules a bare `name` imported from `from` may resolve into, from `from` up: the package's (`root`), and its subpath's when that is a folder. */
function packageFolders(name: string, from: string): { folder: string; root: boolean }[] {
  const parts = name.split('/');
  const size = name.startsWith('@') ? 2 : 1;
  const found: { folder: string; root: boolean }[] = [];
  for (let at = from; ; at = dirname(at)) {
    const modules = join(at, 'node_modules');
    if (isFolder(join(modules, ...parts.slice(0, size)))) found.push({ folder: join(modules, ...parts.slice(0, size)), root: true });
    if (parts.length > size && isFolder(join(modules, name))) found.push({ folder: join(modules, name), root: false });
    if (dirname(at) === at || at === '') return found;
  }
}

/** An import by path (`../node_modules/pkg/dist`, `/abs/node_modules/@s/p`) through a node_modules folder. */
const THROUGH_MODULES = /^[./].*node_modules\//;

/** The package folder a path through node_modules leads into (`…/node_modules/@scope/pkg`), by its last node_modules; none when it names no package folder. */
function packageOfPath(path: string): { folder: string; root: boolean }[] {
  const at = path.lastIndexOf('/node_modules/');
  const parts = at < 0 ? [] : path.slice(at + '/node_modules/'.length).split('/');
  const size = parts[0]?.startsWith('@') ? 2 : 1;
  if (parts.length < size || parts.slice(0, size).some((p) => p === '')) return [];
  const folder = join(path.slice(0, at), 'node_modules', ...parts.slice(0, size));
  return isFolder(folder) ? [{ folder, root: true }] : [];
}

/**
 * Each walked package's scan by its real folder, shared by every build of the process: a scan is
 * only a cache (each folder read again when its change time moved), so the next build (`mep
 * build`'s second esbuild build, a watch's rebuild) reads only what changed. Forgotten whole past
 * {@link MAX_KEPT_PACKAGE_SCANS} packages.
 */
const packageScans = new Map<string, ProjectScan>();
const MAX_KEPT_PACKAGE_SCANS = 10_000;

export type SourceGuard = {
  plugin: esbuild.Plugin;
  /** Checks again, before a kept context's rebuild (a watch), what the first build checked as it started; throws its refusal. */
  recheck(): void;
};

/**
 * The esbuild plugin that keeps a build to bounded regular files: it refuses a module whose
 * (link-resolved) path is in a system tree; it loads a module outside the project (and mep's own
 * PDK) itself through the shared regular-file reader, checking the resolver files of its folders;
 * before each build it checks the resolver files of the project (at most MAX_PROJECT_FOLDERS
 * folders, not node_modules nor hidden ones) and of the folders above it; and at the first import
 * in a build of a bare name (or of a path through node_modules), before esbuild resolves it, those
 * of every folder of each package folder it may resolve into (checkPackage: hidden folders too,
 * linked ones at their real folders, not the package's own node_modules, at most
 * MAX_PACKAGE_FOLDERS, else ERR_LIMIT naming it) and of the folders above. A watch's rebuild reads again only the folders whose change time moved.
 * Modules in the project never reach a hook (esbuild matches the filter itself). The project is
 * {@link projectFolderOf} the entry: never the whole working folder it was started from (`/tmp`).
 * Left: a resolver file swapped between the check and esbuild's own read (a race) still reaches
 * esbuild.
 */
export const sourceGuard = (entry: string, workingFolder: string): SourceGuard => {
  const cwd = projectFolderOf(entry, workingFolder);
  const scan = newProjectScan();
  if (packageScans.size > MAX_KEPT_PACKAGE_SCANS) packageScans.clear();
  let checked = new Set<string>();
  let packages = new Set<string>(); // the package folders walked in this build (as imported, and real)
  let above: string[] = [];
  let fresh = false;
  // esbuild reads the resolver files as a build starts, beside (not after) onStart, and reads
  // those of a watch's project again on a rebuild when they changed: every check is made before
  // esbuild is asked, the first in setup, the next ones by `recheck` before each rebuild. A rebuild
  // checks the folders above the project again (another user can plant a file there at any time)
  // and, of the project's own, the resolver files and the folders that changed (a pull during the
  // watch swapping src/tsconfig.json for a FIFO held the rebuild for good).
  const check = (): void => {
    checked = new Set<string>();
    packages = new Set<string>();
    for (const folder of above) checkFoldersUp(folder, checked);
    checkProject(cwd, scan, checked);
    // A folder of the project that is a link (src/lib -> ../../elsewhere/lib): esbuild reads the
    // package.json of the folders it resolves into through it as it does a package's, so it is
    // walked as a package is, at its real folder (the project walk goes through no link).
    for (const link of scan.links) if (isFolder(link)) checkPackage(link, packageScans, checked, packages);
  };
  const recheck = (): void => (fresh ? void (fresh = false) : check());
  const plugin: esbuild.Plugin = {
    name: 'mep-system-files',
    setup(build) {
      const trusted = [cwd, ...[PDK_ROOT].filter(existsSync).map((f) => realpathSync(f))];
      const outside = outsideFolders(trusted);
      const filter = outside ? new RegExp(`${SYSTEM_TREES.source}|${outside.source}`) : /.*/;
      const loaders = { ...DEFAULT_LOADERS, ...build.initialOptions.loader };
      // The folders above the working folder too: esbuild may read them as it starts, whatever the entry.
      above = [dirname(cwd), build.initialOptions.absWorkingDir ?? workingFolder];
      check();
      fresh = true;
      // esbuild reads the package.json of a package it resolves a name to (`node_modules/pkg/`, in
      // every folder up) and of every folder of it it resolves into (`dist/esm/`), before loading
      // anything of it; the project walk skips node_modules (its size), so at a bare name's first
      // import in a build, each package folder it may resolve into is walked whole (checkPackage:
      // every resolver file in it, at most MAX_PACKAGE_FOLDERS folders), before esbuild resolves it.
      // An import by a path through node_modules (`../node_modules/pkg/dist`) walks its package the same way.
      const checkPackages = (folders: { folder: string; root: boolean }[]): esbuild.OnResolveResult | undefined => {
        try {
          for (const { folder, root } of folders) {
            checkFoldersUp(folder, checked);
            if (root && !packages.has(folder)) packages.add(folder), checkPackage(folder, packageScans, checked, packages);
          }
        } catch (error) {
          return asErrors(error);
        }
        return undefined;
      };
      build.onResolve({ filter: BARE_NAME }, (args) => checkPackages(packageFolders(args.path, args.resolveDir)));
      build.onResolve({ filter: THROUGH_MODULES }, (args) => checkPackages(packageOfPath(resolve(args.resolveDir, args.path))));
      build.onLoad({ filter, namespace: 'file' }, (args) => {
        if (SYSTEM_TREES.test(args.path)) return { errors: [{ text: refusal(args.path, 'in a system tree (/dev, /proc, /sys)').message }] };
        const type = args.with['type'];
        const loader = type === undefined ? loaders[extname(args.path)] : ATTRIBUTE_LOADERS[type];
        try {
          checkFoldersUp(dirname(args.path), checked);
          if (loader === undefined) {
            checkRegular(args.path); // esbuild refuses it unread (no loader), or loads it after this check
            return undefined;
          }
          const contents = readRegularFileSync(args.path, { what: 'a source file', maxBytes: MAX_SOURCE_FILE_BYTES, code: LocalErrorCode.Build, raise: 'split the file' });
          return { contents, loader, watchFiles: [args.path] };
        } catch (error) {
          return asErrors(error);
        }
      });
    },
  };
  return { plugin, recheck };
};

/**
 * The entry points spelled so esbuild takes each for a path, not a pattern: esbuild reads an entry
 * point holding `*` as a glob (a project in a folder named `**` built `**\/main.ts` and every
 * other `main.ts` below) and has no escape for it. Each is given relative to the build's folder
 * (`./main.ts`: what lies above it is not spelled); one whose relative path still holds `*` is
 * refused, ERR_BUILD naming it. (A plugin resolving a stand-in would not do: esbuild then does not
 * apply the entry's tsconfig.json to it.)
 */
export function literalEntries(entryPoints: esbuild.BuildOptions['entryPoints'], cwd: string): esbuild.BuildOptions['entryPoints'] {
  if (!Array.isArray(entryPoints) || !entryPoints.every((e): e is string => typeof e === 'string')) return entryPoints;
  return entryPoints.map((entry) => {
    const path = relative(cwd, resolve(cwd, entry));
    if (!path.includes('*')) return path.startsWith('../') || isAbsolute(path) ? path : `./${path}`;
    throw new MepError(LocalErrorCode.Build, `${resolve(cwd, entry)}: its path from ${cwd} holds "*", which esbuild reads as a pattern of files (it would build every file the pattern matches, not this one). Rename the folder or file, or run mep build from a folder below the "*".`, {
      data: { reason: 'glob-entry', path: resolve(cwd, entry) },
    });
  });
}

/** The text of a file as TypeScript's own reader decodes it (a byte order mark chooses UTF-16 or is dropped). */
function decode(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.toString('utf16le', 2);
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2, 2 + ((bytes.length - 2) & ~1))); // swap16 needs whole units
    return swapped.swap16().toString('utf16le');
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.toString('utf8', 3);
  return bytes.toString('utf8');
}

/**
 * The type check's `readFile`: undefined for a path that is not there (as TypeScript's own), the
 * text of a regular file, and the shared reader's typed refusal (ERR_BUILD naming the kind of file,
 * ERR_LIMIT past the bound) for anything else, checked on the opened descriptor too.
 */
export function readSourceText(path: string): string | undefined {
  try {
    // A link into the kernel's trees is refused as esbuild's filter refuses it: /proc/self/environ
    // is a regular file, and read as source its NAME=value pairs came back as diagnostics.
    const real = realTarget(path);
    if (SYSTEM_TREES.test(real)) throw refusal(real, 'in a system tree (/dev, /proc, /sys)');
    return decode(readRegularFileSync(path, { what: 'a source file', maxBytes: MAX_SOURCE_FILE_BYTES, code: LocalErrorCode.Build, raise: 'split the file' }));
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}
