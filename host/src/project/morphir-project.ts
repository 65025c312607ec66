/**
 * A Morphir project on disk as one compile request: `morphir.json` (`name`, `sourceDirectory`,
 * `exposedModules`, `localDependencies`) and every source file under the source directory, sent
 * by value in one `sources` envelope whose root is the source directory (MEP 0.1, Source
 * documents and Frontend compilation). Node-only: the edge of the host that reads files.
 */
import { realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import type { CompileDependency, CompileParams, SourceDocument } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { DEFAULT_LIMITS, HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { parseJson } from '../protocol/json-parse.ts';
import { readJsonFile } from '../files/json-file.ts';
import { isWithin } from '../files/path-within.ts';
import { detectIrVersion } from '../session/ir-version.ts';
import { createSourceReader, listSourceTree, sourceExtensionsFor } from './source-tree.ts';
import type { SourceLimits, SourceReader } from './source-tree.ts';

/** `morphir.json`, morphir-elm's project file; other members are kept and ignored. */
export const MorphirJson = z.looseObject({
  name: z.string().min(1),
  sourceDirectory: z.string().min(1),
  exposedModules: z.array(z.string()).optional(),
  /** Paths of Morphir IR files of other packages, relative to the project. */
  localDependencies: z.array(z.string()).optional(),
});
/** `morphir.json`. */
export type MorphirJson = z.infer<typeof MorphirJson>;

/** A project read from disk. */
export interface MorphirProject {
  /** The project folder (where `morphir.json` is). */
  dir: string;
  manifest: MorphirJson;
  /** The absolute source directory. */
  sourceDir: string;
  /** The source files sent, absolute, in the order sent (by path). */
  files: string[];
  /** The compile request: every source document, the package, the local dependencies. */
  params: CompileParams;
  /** Where the IR goes unless told otherwise: `morphir-ir.json` in the project. */
  defaultOutput: string;
}

/** Options of {@link readMorphirProject}. */
export interface ReadProjectOptions extends SourceLimits {
  /** The language id of the documents. Default `elm` (morphir.json is morphir-elm's format). */
  languageId?: string;
  /**
   * File extensions the frontend claims for the language. Only those of source files are used
   * (source-tree.ts): an Elm project sends `.elm` files whatever is claimed.
   */
  fileExtensions?: readonly string[];
  /**
   * Folders besides the project's own that its `sourceDirectory` may be in (a monorepo's
   * `../shared/src`): given by the user (`mep compile --source-root`), never by the project,
   * whose `morphir.json` comes with the sources. Each must be a folder; compared by real path.
   */
  sourceRoots?: readonly string[];
}

/** The flag that allows a source directory outside the project, as errors name it. */
export const SOURCE_ROOT_FLAG = '--source-root';

function usage(message: string, data: Record<string, unknown>, cause?: unknown): MepError {
  return new MepError(LocalErrorCode.Usage, message, { data, ...(cause === undefined ? {} : { cause }) });
}

/** Reads and checks `<dir>/morphir.json`; a usage error naming the file and the problem. */
export async function readMorphirJson(dir: string): Promise<{ path: string; manifest: MorphirJson }> {
  const path = join(dir, 'morphir.json');
  let json: unknown;
  try {
    // Only its top-level keys are the schema's; what other members hold is kept as data.
    json = await readJsonFile(path, { what: 'the project file', maxBytes: HOST_FILE_LIMITS.smallFileBytes, keys: { dataAt: (at) => at.length > 0 } });
  } catch (error) {
    if ((error as MepError).data && ((error as MepError).data as { reason?: string }).reason === 'missing') {
      throw usage(`${dir} is not a Morphir project: there is no ${path}. A project has a morphir.json with "name" and "sourceDirectory".`, { path, reason: 'missing' }, error);
    }
    throw error;
  }
  const parsed = MorphirJson.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw usage(`${path} is not a usable morphir.json: ${issue.path.join('.') || 'the file'}: ${issue.message}. It needs "name" (the package) and "sourceDirectory".`, { path, issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  }
  return { path, manifest: parsed.data };
}

/** `localDependencies` as inline dependencies (MEP 0.1: dependencies are IR distributions). */
async function localDependencies(dir: string, paths: readonly string[], reader: SourceReader): Promise<CompileDependency[]> {
  return Promise.all(
    paths.map(async (p) => {
      const path = resolve(dir, p);
      const what = `the local dependency ${p} of ${join(dir, 'morphir.json')}`;
      const text = await reader.read(path, what, false).catch((error: unknown) => {
        if (error instanceof MepError && error.code === LocalErrorCode.Usage) throw usage(`Cannot read ${what} (${error.message}); it must be a Morphir IR file.`, { path, reason: (error.data as { reason?: unknown }).reason }, error);
        throw error;
      });
      let distribution: Record<string, unknown>;
      try {
        // IR is data: its keys are kept as they are.
        distribution = parseJson(text, 'data') as Record<string, unknown>;
      } catch (error) {
        throw usage(`The local dependency ${p} of ${join(dir, 'morphir.json')} is not JSON (${(error as Error).message}); it must be a Morphir IR file.`, { path, reason: 'not-json' }, error);
      }
      const irVersion = detectIrVersion(distribution, `the local dependency ${path}`);
      const pkg = Array.isArray(distribution.distribution) ? (distribution.distribution[1] as unknown) : undefined;
      const packageName = Array.isArray(pkg) ? pkg.map((n) => (Array.isArray(n) ? n.join('-') : String(n))).join('/') : p;
      return { packageName, irVersion, distribution };
    }),
  );
}

/** The real paths of the roots the user allows; ERR_USAGE `source-root-not-a-folder` naming one that is not a folder. */
async function allowedRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(
    roots.map(async (root) => {
      const real = await realpath(root).catch(() => undefined);
      const isDir = real !== undefined && (await stat(real).then((s) => s.isDirectory(), () => false));
      if (!isDir) throw usage(`The source root ${root} (${SOURCE_ROOT_FLAG}) is not a folder; name the folder that holds the sources, e.g. ${SOURCE_ROOT_FLAG} ../shared.`, { sourceRoot: root, reason: 'source-root-not-a-folder' });
      return real;
    }),
  );
}

/**
 * The absolute source directory of a project: a folder whose real path lies in the project's
 * (`"src"`, `"."`) or in a root the user allows (`sourceRoots`), never one `..`, an absolute
 * path or a link leads out of those (`"/"`, `"../../.."`, a `src` linked to the home folder),
 * whose files a frontend would be sent. ERR_USAGE naming morphir.json (`data.reason`:
 * `not-a-folder`, `outside-project`, naming {@link SOURCE_ROOT_FLAG}) or the root
 * (`source-root-not-a-folder`).
 */
async function projectSourceDir(root: string, manifestPath: string, manifest: MorphirJson, sourceRoots: readonly string[] = []): Promise<string> {
  const sourceDir = resolve(root, manifest.sourceDirectory);
  const isDir = await stat(sourceDir).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw usage(`The sourceDirectory "${manifest.sourceDirectory}" of ${manifestPath} is not a folder (${sourceDir}).`, { path: manifestPath, sourceDir, reason: 'not-a-folder' });
  const [realRoot, realSource, allowed] = await Promise.all([realpath(root), realpath(sourceDir), allowedRoots(sourceRoots)]);
  if (![realRoot, ...allowed].some((r) => isWithin(realSource, r))) {
    const beyond = allowed.length === 0 ? '' : ` or of ${allowed.join(', ')} (${SOURCE_ROOT_FLAG})`;
    throw usage(`The sourceDirectory "${manifest.sourceDirectory}" of ${manifestPath} is outside the project (it is ${realSource}); mep sends a frontend only files of the project's own folder${beyond}. If these are your sources (a monorepo's shared folder), allow their folder with ${SOURCE_ROOT_FLAG} ${realSource}; else move the sources under ${root}, or point sourceDirectory at a folder there.`, {
      path: manifestPath,
      sourceDir,
      realPath: realSource,
      reason: 'outside-project',
      flag: SOURCE_ROOT_FLAG,
    });
  }
  return sourceDir;
}

/**
 * The folders under a project's source directory that hold, or may come to hold, its sources
 * (see {@link listSourceTree}): what `mep compile --watch` watches. The bounds and errors of
 * {@link readMorphirProject}; no source file is read.
 */
export async function readSourceFolders(dir: string, options: ReadProjectOptions = {}): Promise<{ sourceDir: string; folders: string[] }> {
  const root = resolve(dir);
  const { path: manifestPath, manifest } = await readMorphirJson(root);
  const sourceDir = await projectSourceDir(root, manifestPath, manifest, options.sourceRoots);
  const { folders } = await listSourceTree(sourceDir, sourceExtensionsFor(options.languageId ?? 'elm', options.fileExtensions ?? []), options);
  return { sourceDir, folders };
}

/**
 * Reads the project in `dir` as one compile request. Throws a usage error (`ERR_USAGE`, naming
 * the file) when `morphir.json` is missing or malformed, the source directory does not exist, it
 * holds no source file, or a local dependency cannot be read.
 *
 * @example
 * const project = await readMorphirProject('models/orders');
 * const result = await session.compile(project.params);
 */
export async function readMorphirProject(dir: string, options: ReadProjectOptions = {}): Promise<MorphirProject> {
  const languageId = options.languageId ?? 'elm';
  const extensions = sourceExtensionsFor(languageId, options.fileExtensions ?? []);
  const reader = createSourceReader(options.maxSourceBytes ?? DEFAULT_LIMITS.maxMessageBytes);
  const root = resolve(dir);
  const { path: manifestPath, manifest } = await readMorphirJson(root);
  const sourceDir = await projectSourceDir(root, manifestPath, manifest, options.sourceRoots);
  const { files } = await listSourceTree(sourceDir, extensions, options);
  if (files.length === 0) throw usage(`${sourceDir} (the sourceDirectory of ${manifestPath}) holds no ${extensions.join(' or ')} file.`, { path: manifestPath, sourceDir });
  const documents: SourceDocument[] = await Promise.all(files.map(async (file) => ({ uri: pathToFileURL(file).href, languageId, version: 1, text: await reader.read(file, 'the source file', true) })));
  const dependencies = await localDependencies(root, manifest.localDependencies ?? [], reader);
  const params: CompileParams = {
    languageId,
    sources: { root: pathToFileURL(sourceDir.endsWith(sep) ? sourceDir : `${sourceDir}${sep}`).href, documents },
    package: manifest.exposedModules === undefined ? { name: manifest.name } : { name: manifest.name, exposedModules: manifest.exposedModules },
    ...(dependencies.length > 0 ? { dependencies } : {}),
  };
  return { dir: root, manifest, sourceDir, files, params, defaultOutput: join(root, 'morphir-ir.json') };
}
