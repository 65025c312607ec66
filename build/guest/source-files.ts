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
import { existsSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileKind, isMissingFile, readRegularFileSync } from '../../host/src/files/regular-file.ts';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { parseJson } from '../../host/src/protocol/json-parse.ts';

/** The largest single file the type check reads (a generated source of tens of MB still fits). */
export const MAX_SOURCE_FILE_BYTES = 64 * 1024 * 1024;

/** mep's own guest PDK (its sources in a checkout, its JavaScript in the package): trusted as the project is. */
const PDK_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'guest-pdk');

/** Paths of the kernel's trees: devices, processes, the system's objects (never a source). */
const SYSTEM_TREES = /^\/(?:dev|proc|sys)(?:\/|$)/;

const refusal = (path: string, what: string): MepError =>
  new MepError(LocalErrorCode.Build, `${path} is ${what}, not a source file: a build reads only regular files. Remove the link or the file from the project (or the import that names it).`, {
    data: { reason: 'not-a-source-file', path },
  });

/** The files esbuild's resolver reads in a folder it resolves from (and in every folder above it). */
const RESOLVER_FILES = new Set(['package.json', 'tsconfig.json', 'jsconfig.json']);
/** The most folders of a project the resolver-file check walks before each build. */
export const MAX_PROJECT_FOLDERS = 20_000;

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

/** Refuses a file that is there and is not a bounded regular file; whether it is there. */
function checkRegular(path: string): boolean {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return false;
  if (!info.isFile()) throw refusal(path, fileKind(info));
  if (info.size > MAX_SOURCE_FILE_BYTES) throw refusal(path, `${info.size} bytes, larger than the ${MAX_SOURCE_FILE_BYTES} a build reads of one file`);
  return true;
}

/** How many `extends` deep a tsconfig chain is followed (esbuild's own chains are shorter). */
const MAX_EXTENDS_DEPTH = 16;

/** The files a tsconfig's `extends` names: by path (a string or a list), or a package's, resolved through node_modules ({@link packageExtends}). */
function extendsOf(text: string, folder: string): string[] {
  const value = /"extends"\s*:\s*("(?:\\.|[^"\\])*"|\[[^\]]*\])/.exec(text)?.[1] ?? '';
  const named = [...value.matchAll(/"((?:\\.|[^"\\])*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
  return named.flatMap((name) => {
    if (!name.startsWith('.') && !name.startsWith('/')) return packageExtends(name, folder);
    return name.endsWith('.json') ? [resolve(folder, name)] : [resolve(folder, name), resolve(folder, `${name}.json`)];
  });
}

/** The most values of a package.json's `exports` looked at for an `extends` (real ones hold a few). */
const MAX_EXPORT_VALUES = 1_000;

/** Every string in `value` (an `exports` target: a string, conditions, a list), the first {@link MAX_EXPORT_VALUES} values. */
function exportTargets(value: unknown): string[] {
  const found: string[] = [];
  const stack = [value];
  for (let seen = 0; stack.length > 0 && seen < MAX_EXPORT_VALUES; seen++) {
    const at = stack.pop();
    if (typeof at === 'string') found.push(at);
    else if (at !== null && typeof at === 'object') stack.push(...Object.values(at));
  }
  return found;
}

/** What a package's package.json (at `dir`) may map the subpath `want` (`.`, `./base.json`) to for an `extends`: its `tsconfig` field and its `exports`. */
function exportedFiles(dir: string, want: string): string[] {
  let manifest: unknown;
  try {
    manifest = parseJson(readRegularFileSync(join(dir, 'package.json'), { what: 'a package.json', maxBytes: MAX_SOURCE_FILE_BYTES, code: LocalErrorCode.Build }).toString('utf8'), 'data');
  } catch (error) {
    if (error instanceof MepError) throw error;
    return []; // not JSON: esbuild reports it
  }
  if (manifest === null || typeof manifest !== 'object') return [];
  const { tsconfig, exports } = manifest as { tsconfig?: unknown; exports?: unknown };
  const found = typeof tsconfig === 'string' ? [join(dir, tsconfig)] : [];
  const keyed = exports !== null && typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.'));
  for (const [key, target] of keyed ? Object.entries(exports as object) : [['.', exports] as const]) {
    const star = key.indexOf('*');
    const [before, after] = [key.slice(0, star), key.slice(star + 1)];
    if (star < 0 ? key !== want : !(want.startsWith(before) && want.endsWith(after) && want.length >= key.length - 1)) continue;
    const part = star < 0 ? '' : want.slice(before.length, want.length - after.length);
    for (const file of exportTargets(target)) found.push(resolve(dir, star < 0 ? file : file.replaceAll('*', part)));
  }
  return found;
}

/**
 * The files an `extends` naming a package (`@acme/tsconfig/base.json`, `shared`) may resolve to, in
 * every node_modules from `folder` up, as esbuild and TypeScript look: the path, with `.json`, its
 * `tsconfig.json`, and the package's package.json with what it maps the name to.
 */
function packageExtends(name: string, folder: string): string[] {
  const parts = name.split('/');
  const size = name.startsWith('@') ? 2 : 1;
  const want = parts.length > size ? `./${parts.slice(size).join('/')}` : '.';
  const found: string[] = [];
  for (let at = folder; ; at = dirname(at)) {
    const modules = join(at, 'node_modules');
    const dir = join(modules, ...parts.slice(0, size));
    found.push(join(modules, name), join(modules, `${name}.json`), join(modules, name, 'tsconfig.json'), join(dir, 'package.json'));
    if (checkRegular(join(dir, 'package.json'))) found.push(...exportedFiles(dir, want));
    if (dirname(at) === at) return found;
  }
}

/**
 * Refuses a resolver file (package.json, tsconfig.json) that is there and is not a bounded regular
 * file; a tsconfig's `extends` chain (esbuild reads it too) is checked the same way (a folder it
 * names is not a file esbuild reads: it goes on to the next candidate).
 */
function checkResolverFile(path: string, depth = 0): void {
  if (depth > 0 && statSync(path, { throwIfNoEntry: false })?.isDirectory()) return;
  if (!checkRegular(path) || basename(path) === 'package.json' || depth >= MAX_EXTENDS_DEPTH) return;
  const text = readRegularFileSync(path, { what: 'a tsconfig file', maxBytes: MAX_SOURCE_FILE_BYTES, code: LocalErrorCode.Build }).toString('utf8');
  for (const target of extendsOf(text, dirname(path))) checkResolverFile(target, depth + 1);
}

/** Checks the resolver files of `folder` and every folder above it not checked yet. */
function checkFoldersUp(folder: string, checked: Set<string>): void {
  for (let at = folder; !checked.has(at); at = dirname(at)) {
    checked.add(at);
    for (const name of RESOLVER_FILES) checkResolverFile(join(at, name));
    if (dirname(at) === at) return;
  }
}

/** Checks the resolver files of the project's folders (not node_modules, not hidden ones, not through links). */
function checkProject(root: string, checked: Set<string>): void {
  const folders = [root];
  for (let i = 0; i < folders.length && i < MAX_PROJECT_FOLDERS; i++) {
    checked.add(folders[i]!);
    let entries: Dirent[];
    try {
      entries = readdirSync(folders[i]!, { withFileTypes: true });
    } catch {
      continue; // unreadable: esbuild cannot read it either
    }
    for (const entry of entries) {
      if (RESOLVER_FILES.has(entry.name)) checkResolverFile(join(folders[i]!, entry.name));
      else if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) folders.push(join(folders[i]!, entry.name));
    }
  }
}

/** esbuild's loader of a file it would load itself, from the build's `loader` option and its defaults. */
const DEFAULT_LOADERS: Record<string, esbuild.Loader> = { '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx', '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.json': 'json', '.css': 'css', '.txt': 'text' };
const ATTRIBUTE_LOADERS: Record<string, esbuild.Loader> = { json: 'json', text: 'text', bytes: 'binary' };

const asErrors = (error: unknown): esbuild.OnLoadResult => ({ errors: [{ text: error instanceof Error ? error.message : String(error) }] });

/**
 * The project folder of `entry` for the guard: the nearest folder with a package.json from the
 * entry's up to the working folder (when the entry is in it), else the entry's own folder. Never
 * further up: a build run in `/tmp` on `project/main.ts` must not trust, nor walk, all of `/tmp`.
 */
export function projectFolderOf(entry: string, workingFolder: string): string {
  const real = (path: string): string => {
    try {
      return realpathSync(path);
    } catch {
      return path; // not there: esbuild reports the entry itself
    }
  };
  const start = real(dirname(resolve(workingFolder, entry)));
  const stop = real(workingFolder);
  if (start === stop || !start.startsWith(stop.endsWith('/') ? stop : `${stop}/`)) return start;
  for (let at = start; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at;
    if (at === stop) return start;
  }
}

/**
 * The esbuild plugin that keeps a build to bounded regular files: it refuses a module whose
 * (link-resolved) path is in a system tree; it loads a module outside the project (and mep's own
 * PDK) itself through the shared regular-file reader, checking the resolver files of its folders;
 * and before each build it checks the resolver files of the project and of the folders above it.
 * Modules in the project never reach a hook (esbuild matches the filter itself). The project is
 * {@link projectFolderOf} the entry: never the whole working folder it was started from (`/tmp`).
 */
export const sourceGuard = (entry: string, workingFolder: string): esbuild.Plugin => ({
  name: 'mep-system-files',
  setup(build) {
    const cwd = projectFolderOf(entry, workingFolder);
    const trusted = [cwd, ...[PDK_ROOT].filter(existsSync).map((f) => realpathSync(f))];
    const outside = outsideFolders(trusted);
    const filter = outside ? new RegExp(`${SYSTEM_TREES.source}|${outside.source}`) : /.*/;
    const loaders = { ...DEFAULT_LOADERS, ...build.initialOptions.loader };
    // esbuild reads the resolver files above its working folder as the build starts, beside (not
    // after) onStart: the first check is here, before esbuild is asked. A watch's rebuild checks the
    // folders above the project again (another user can plant a file there at any time), not the
    // project's own (a walk of each of its folders, about 2 ms for 31 folders: docs/performance-log.md).
    // The folders above the working folder too: esbuild may read them as it starts, whatever the entry.
    const above = [dirname(cwd), build.initialOptions.absWorkingDir ?? workingFolder];
    let checked = new Set<string>();
    for (const folder of above) checkFoldersUp(folder, checked);
    checkProject(cwd, checked);
    let first = true;
    build.onStart(() => {
      if (first) return void (first = false);
      checked = new Set([cwd]);
      try {
        for (const folder of above) checkFoldersUp(folder, checked);
      } catch (error) {
        return asErrors(error);
      }
      return undefined;
    });
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
});

/** The stand-in esbuild is given for the n-th entry point: no path, so nothing it could read as a glob. */
const STAND_IN = /^mep-entry:(\d+)$/;

/**
 * The entry points as paths, never patterns: esbuild reads an entry point holding `*` as a glob
 * (a project in a folder named `**` built `**\/main.ts` and every other `main.ts` below), and
 * has no escape for it. Each entry is given as a stand-in this plugin resolves to its path.
 */
export function literalEntries(entryPoints: esbuild.BuildOptions['entryPoints'], cwd: string): { entryPoints: esbuild.BuildOptions['entryPoints']; plugins: esbuild.Plugin[] } {
  if (!Array.isArray(entryPoints) || !entryPoints.every((e): e is string => typeof e === 'string')) return { entryPoints, plugins: [] };
  const paths = entryPoints.map((e) => resolve(cwd, e));
  const plugin: esbuild.Plugin = {
    name: 'mep-literal-entries',
    setup: (build) => void build.onResolve({ filter: STAND_IN }, (args) => (args.kind === 'entry-point' ? { path: paths[Number(STAND_IN.exec(args.path)![1])]! } : undefined)),
  };
  return { entryPoints: paths.map((_, n) => `mep-entry:${n}`), plugins: [plugin] };
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
    return decode(readRegularFileSync(path, { what: 'a source file', maxBytes: MAX_SOURCE_FILE_BYTES, code: LocalErrorCode.Build, raise: 'split the file' }));
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}
