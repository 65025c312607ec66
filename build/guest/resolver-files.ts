/**
 * The files esbuild's resolver reads beside the sources (`package.json`, `tsconfig.json`,
 * `jsconfig.json`, a tsconfig's `extends` chain) are held to what sources are (source-files.ts):
 * bounded regular files, checked before esbuild is asked, since esbuild reads them itself, with
 * no hook: a FIFO among them held the build for good, a link to `/dev/zero` grew it without end.
 * What is checked: the folders above the project, the project's own folders ({@link checkProject},
 * at most {@link MAX_PROJECT_FOLDERS}), and every folder of each package a bare import may resolve
 * into ({@link checkPackage}, at most {@link MAX_PACKAGE_FOLDERS} a package), each walk kept by
 * change time so a watch's rebuild reads again only the folders that changed.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type BigIntStats, type Dirent } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileKind, readRegularFileSync } from '../../host/src/files/regular-file.ts';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { parseJson } from '../../host/src/protocol/json-parse.ts';

/** The largest single file the type check reads (a generated source of tens of MB still fits). */
export const MAX_SOURCE_FILE_BYTES = 64 * 1024 * 1024;

export const refusal = (path: string, what: string): MepError =>
  new MepError(LocalErrorCode.Build, `${path} is ${what}, not a source file: a build reads only regular files. Remove the link or the file from the project (or the import that names it).`, {
    data: { reason: 'not-a-source-file', path },
  });

/** The files esbuild's resolver reads in a folder it resolves from (and in every folder above it). */
const RESOLVER_FILES = new Set(['package.json', 'tsconfig.json', 'jsconfig.json']);
/** The most folders of a project the resolver-file check walks before each build. */
export const MAX_PROJECT_FOLDERS = 20_000;
/** The most folders of one imported package the resolver-file check walks (a real package holds a few hundred at most). */
export const MAX_PACKAGE_FOLDERS = 20_000;

/** Refuses a file that is there and is not a bounded regular file; whether it is there. */
export function checkRegular(path: string): boolean {
  const info = statSync(path, { throwIfNoEntry: false });
  if (!info) return false;
  if (!info.isFile()) throw refusal(path, fileKind(info));
  if (info.size > MAX_SOURCE_FILE_BYTES) throw refusal(path, `${info.size} bytes, larger than the ${MAX_SOURCE_FILE_BYTES} a build reads of one file`);
  return true;
}

/** How many `extends` deep a tsconfig chain is followed (esbuild's own chains are shorter). */
const MAX_EXTENDS_DEPTH = 16;

/**
 * `text` with its comments (`//`, `/* *\/`, as tsconfig files have them) made spaces, strings
 * kept: one pass, so no text makes it slow (a pattern for comments around each token backtracked
 * on an unclosed array of spaces).
 */
function withoutComments(text: string): string {
  const kept: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; ) {
    if (text[i] === '"') {
      for (i++; i < text.length && text[i] !== '"'; ) i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (text[i] === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      kept.push(text.slice(from, i), ' ');
      const end = text[i + 1] === '/' ? text.indexOf('\n', i) : text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : text[i + 1] === '/' ? end : end + 2;
      from = i;
    } else i++;
  }
  kept.push(text.slice(from));
  return kept.join('');
}

/** A JSON string; an `"extends"` member (its key spelled with escapes or not) and its value (a string, or a list of them). */
const STRING = /"(?:\\.|[^"\\])*"/g;
const KEY = [...'extends'].map((c) => String.raw`(?:${c}|\\u00${c.charCodeAt(0).toString(16)})`).join('');
const EXTENDS = new RegExp(String.raw`"${KEY}"\s*:\s*("(?:\\.|[^"\\])*"|\[(?:\s|"(?:\\.|[^"\\])*"|,)*\])`, 'gi'); // i: escapes in upper-case hex

/** The files a tsconfig's `extends` names: by path (a string or a list), or a package's, resolved through node_modules ({@link packageExtends}). */
function extendsOf(text: string, folder: string): string[] {
  // Every "extends" as esbuild may read it, not only the first spelled plainly: a key spelled with
  // escapes (`"ext\u0065nds"`), comments around the colon, a `]` inside a name of a list; each
  // duplicate too (esbuild takes the first, TypeScript the last). Checking one more file costs a stat.
  const values = [...withoutComments(text).matchAll(EXTENDS)].map((m) => m[1]!);
  const named = values.flatMap((value) => [...value.matchAll(STRING)].flatMap((m) => {
    try {
      return [parseJson(m[0], 'data') as string]; // the name as JSON decodes it (`..\u002fbase.json`)
    } catch {
      return []; // not a JSON string: esbuild refuses the file
    }
  }));
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
    else if (at !== null && typeof at === 'object') {
      // One by one and no more than the bound: a spread of 300,000 values overflowed the stack.
      for (const value of Object.values(at)) if (stack.length < MAX_EXPORT_VALUES) stack.push(value);
    }
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
export function checkFoldersUp(folder: string, checked: Set<string>): void {
  for (let at = folder; !checked.has(at); at = dirname(at)) {
    checked.add(at);
    for (const name of RESOLVER_FILES) checkResolverFile(join(at, name));
    if (dirname(at) === at) return;
  }
}

/**
 * What the last check of a project found: each folder walked with its change time (ctime, which a
 * name created, removed or renamed in it moves, and which no one can set back) and the resolver
 * files in them. A rebuild reads again only the folders whose change time moved (a file swapped
 * for a FIFO or a link, a folder added) and checks every resolver file found again (a file edited
 * in place, a link whose target changed).
 */
export interface ProjectScan {
  folders: Map<string, bigint>;
  files: Set<string>;
  /** The links found among the folders' entries (a package's linked folders are walked at their targets). */
  links: Set<string>;
}

export const newProjectScan = (): ProjectScan => ({ folders: new Map(), files: new Set(), links: new Set() });

const changeTime = (path: string): BigIntStats | undefined => lstatSync(path, { bigint: true, throwIfNoEntry: false });

/** Where `path` leads, links resolved; `path` itself when it leads nowhere (the reader then says it is missing). */
export function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Reads one folder into `scan` (its change time taken before it is read); the folders under it not seen yet go on `queue` (hidden ones only with `hidden`). */
function scanFolder(folder: string, root: string, scan: ProjectScan, queue: string[], hidden: boolean): void {
  const info = changeTime(folder); // lstat: a folder swapped for a link is no longer walked
  // Nor what lies below it, now reached through the link (its parent is read first, walks are breadth first).
  if (!info?.isDirectory() || (folder !== root && !scan.folders.has(dirname(folder)))) return forget(folder, scan);
  scan.folders.set(folder, info.ctimeNs);
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return; // unreadable: esbuild cannot read it either
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (RESOLVER_FILES.has(entry.name)) scan.files.add(path);
    else if (entry.isSymbolicLink() && entry.name !== 'node_modules') scan.links.add(path);
    else if (entry.isDirectory() && entry.name !== 'node_modules' && (hidden || !entry.name.startsWith('.')) && !scan.folders.has(path)) queue.push(path);
  }
}

/** Drops `folder` from `scan`, with the resolver files and links found in it. */
function forget(folder: string, scan: ProjectScan): void {
  if (!scan.folders.delete(folder)) return;
  for (const found of [scan.files, scan.links]) for (const path of found) if (dirname(path) === folder) found.delete(path);
}

/**
 * Reads into `scan` the folders of `root` (not node_modules, never through links): the first time
 * all of them, then those whose change time moved since `scan`, at most `limit` in all; whether
 * folders were left unread at the limit.
 */
function walk(root: string, scan: ProjectScan, hidden: boolean, limit: number): boolean {
  const queue = scan.folders.size === 0 ? [root] : [...scan.folders].filter(([folder, at]) => changeTime(folder)?.ctimeNs !== at).map(([folder]) => folder);
  let i = 0;
  for (; i < queue.length && scan.folders.size < limit; i++) scanFolder(queue[i]!, root, scan, queue, hidden);
  return i < queue.length;
}

/**
 * Checks the resolver files of the project's folders (not node_modules, not hidden ones, not
 * through links), at most {@link MAX_PROJECT_FOLDERS}: the first time all of them, then the
 * folders that changed since `scan` and every resolver file it holds.
 */
export function checkProject(root: string, scan: ProjectScan, checked: Set<string>): void {
  walk(root, scan, false, MAX_PROJECT_FOLDERS);
  for (const folder of scan.folders.keys()) checked.add(folder);
  for (const file of scan.files) checkResolverFile(file);
}

/** Whether `path` leads to a folder (links followed); not when a file is on the way (ENOTDIR) or links loop. */
export const isFolder = (path: string): boolean => {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false; // esbuild resolves nothing through it either
  }
};

/**
 * Checks the resolver files of every folder of a package a build imports (`node_modules/pkg`, its
 * real folder when it is a link), hidden ones too, not its own node_modules (packages of their
 * own, checked when imported), and of the folders above it: esbuild reads the package.json of each
 * folder it resolves into (`dist/esm/` of `"exports": "./dist/esm/index.js"`) before any hook. A
 * folder of it that is a link (a git dependency's `dist -> ../../elsewhere`) is walked at its real
 * folder in turn, each real folder once a build (`walked`: a loop of links ends). `scans` keeps
 * each walk (by real folder) from build to build, so a watch's rebuild reads again only the
 * folders whose change time moved. More than {@link MAX_PACKAGE_FOLDERS} folders in all, linked
 * ones counted, is `ERR_LIMIT` naming the package (the walk that met the bound forgotten).
 */
export function checkPackage(folder: string, scans: Map<string, ProjectScan>, checked: Set<string>, walked: Set<string>): void {
  const roots = [realTarget(folder)];
  let total = 0;
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i]!;
    if (walked.has(root) && i > 0) continue; // the package's own folder may be in it as imported
    walked.add(root);
    checkFoldersUp(root, checked);
    let scan = scans.get(root);
    if (!scan) scans.set(root, (scan = newProjectScan()));
    if (walk(root, scan, true, MAX_PACKAGE_FOLDERS - total) || (total += scan.folders.size) > MAX_PACKAGE_FOLDERS) {
      scans.delete(root);
      throw new MepError(LocalErrorCode.Limit, `${folder} (an imported package, or a folder of the project that is a link) holds more than ${MAX_PACKAGE_FOLDERS} folders (MAX_PACKAGE_FOLDERS, linked folders counted), more than a build checks for the package.json and tsconfig.json files esbuild reads. Remove the folders the build does not need from it, or import another package.`, {
        data: { limit: 'MAX_PACKAGE_FOLDERS', max: MAX_PACKAGE_FOLDERS, path: folder },
      });
    }
    for (const at of scan.folders.keys()) checked.add(at);
    for (const file of scan.files) checkResolverFile(file);
    for (const link of scan.links) if (isFolder(link)) roots.push(realTarget(link));
  }
}
