/**
 * A Morphir project on disk as one compile request: `morphir.json` (`name`, `sourceDirectory`,
 * `exposedModules`, `localDependencies`) and every source file under the source directory, sent
 * by value in one `sources` envelope whose root is the source directory (MEP 0.1, Source
 * documents and Frontend compilation). Node-only: the edge of the host that reads files.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import type { CompileDependency, CompileParams, SourceDocument } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { detectIrVersion } from '../session/ir-version.ts';

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
export interface ReadProjectOptions {
  /** The language id of the documents. Default `elm` (morphir.json is morphir-elm's format). */
  languageId?: string;
  /** File extensions of source files. Default `.elm`. */
  fileExtensions?: readonly string[];
}

function usage(message: string, data: Record<string, unknown>, cause?: unknown): MepError {
  return new MepError(LocalErrorCode.Usage, message, { data, ...(cause === undefined ? {} : { cause }) });
}

/** Reads and checks `<dir>/morphir.json`; a usage error naming the file and the problem. */
export async function readMorphirJson(dir: string): Promise<{ path: string; manifest: MorphirJson }> {
  const path = join(dir, 'morphir.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usage(`${dir} is not a Morphir project: cannot read ${path} (${code ?? (error as Error).message}). A project has a morphir.json with "name" and "sourceDirectory".`, { path }, error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw usage(`${path} is not valid JSON (${(error as Error).message}).`, { path }, error);
  }
  const parsed = MorphirJson.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw usage(`${path} is not a usable morphir.json: ${issue.path.join('.') || 'the file'}: ${issue.message}. It needs "name" (the package) and "sourceDirectory".`, { path, issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  }
  return { path, manifest: parsed.data };
}

/** Every regular file under `dir` with one of `extensions`, sorted by path (symbolic links are not followed). */
async function sourceFiles(dir: string, extensions: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && extensions.includes(extname(entry.name))) out.push(path);
    }
  };
  await walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `localDependencies` as inline dependencies (MEP 0.1: dependencies are IR distributions). */
async function localDependencies(dir: string, paths: readonly string[]): Promise<CompileDependency[]> {
  return Promise.all(
    paths.map(async (p) => {
      const path = resolve(dir, p);
      let distribution: Record<string, unknown>;
      try {
        distribution = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      } catch (error) {
        throw usage(`The local dependency ${p} of ${join(dir, 'morphir.json')} cannot be read as JSON (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); it must be a Morphir IR file.`, { path }, error);
      }
      const irVersion = detectIrVersion(distribution, `the local dependency ${path}`);
      const pkg = Array.isArray(distribution.distribution) ? (distribution.distribution[1] as unknown) : undefined;
      const packageName = Array.isArray(pkg) ? pkg.map((n) => (Array.isArray(n) ? n.join('-') : String(n))).join('/') : p;
      return { packageName, irVersion, distribution };
    }),
  );
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
  const extensions = options.fileExtensions ?? ['.elm'];
  const root = resolve(dir);
  const { path: manifestPath, manifest } = await readMorphirJson(root);
  const sourceDir = resolve(root, manifest.sourceDirectory);
  const isDir = await stat(sourceDir).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw usage(`The sourceDirectory "${manifest.sourceDirectory}" of ${manifestPath} is not a folder (${sourceDir}).`, { path: manifestPath, sourceDir });
  const files = await sourceFiles(sourceDir, extensions);
  if (files.length === 0) throw usage(`${sourceDir} (the sourceDirectory of ${manifestPath}) holds no ${extensions.join(' or ')} file.`, { path: manifestPath, sourceDir });
  const documents: SourceDocument[] = await Promise.all(files.map(async (file) => ({ uri: pathToFileURL(file).href, languageId, version: 1, text: await readFile(file, 'utf8') })));
  const dependencies = await localDependencies(root, manifest.localDependencies ?? []);
  const params: CompileParams = {
    languageId,
    sources: { root: pathToFileURL(sourceDir.endsWith(sep) ? sourceDir : `${sourceDir}${sep}`).href, documents },
    package: manifest.exposedModules === undefined ? { name: manifest.name } : { name: manifest.name, exposedModules: manifest.exposedModules },
    ...(dependencies.length > 0 ? { dependencies } : {}),
  };
  return { dir: root, manifest, sourceDir, files, params, defaultOutput: join(root, 'morphir-ir.json') };
}
