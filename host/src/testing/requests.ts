/**
 * Requests a test sends to a frontend, validator or transform, in the shapes MEP 0.1 expects:
 * source documents with `file://` URIs under a source root and the current `sources: { root,
 * documents }` envelope; a sample project read from a folder; IR params with their `irVersion`.
 */
import { readdir } from 'node:fs/promises';
import { extname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readTextFile } from '../files/regular-file.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { CompileParams, SourceDocument } from '../protocol/index.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import type { IrInput } from './open-extension.ts';
import type { MorphirIr } from './sample-ir.ts';

/** The source root tests use when they name none: a URI, never read (documents travel by value). */
export const TEST_SOURCE_ROOT = 'file:///work/project';

/** `root` as a URI ending in `/`: a URI is kept, an absolute path becomes a `file://` URI. */
function rootUri(root: string): string {
  const uri = /^[a-z][a-z0-9+.-]*:/i.test(root) ? root : pathToFileURL(resolve(root)).href;
  return uri.endsWith('/') ? uri : `${uri}/`;
}

/**
 * One source document: `path` (relative, `/`-separated, e.g. `'Acme/Orders.tiny'`) under `root`
 * (default {@link TEST_SOURCE_ROOT}), version 1.
 *
 * @example
 * sourceDocument('Orders.tiny', 'type Id = Int\n', { languageId: 'tiny' })
 * // { uri: 'file:///work/project/Orders.tiny', languageId: 'tiny', version: 1, text: 'type Id = Int\n' }
 */
export function sourceDocument(path: string, text: string, options: { languageId: string; root?: string; version?: number }): SourceDocument {
  const segments = path.split(/[\\/]/);
  if (path === '' || path.startsWith('/') || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new MepError(LocalErrorCode.Usage, `sourceDocument: '${path}' is not a relative path below the source root; pass one such as 'Acme/Orders.${options.languageId}'.`);
  }
  const uri = new URL(segments.map(encodeURIComponent).join('/'), rootUri(options.root ?? TEST_SOURCE_ROOT)).href;
  return { uri, languageId: options.languageId, version: options.version ?? 1, text };
}

/** What {@link compileRequest} builds a request from. */
export interface CompileRequestInput {
  languageId: string;
  /** The documents: relative path → source text. */
  files: Record<string, string>;
  /** The source root (a URI or an absolute path; default {@link TEST_SOURCE_ROOT}). */
  root?: string;
  /** `package.name` (default `local/test`). */
  packageName?: string;
  exposedModules?: string[];
  options?: Record<string, unknown>;
}

/**
 * The params of `morphir.frontend.compile` for `files`, in the current envelope
 * (`sources: { root, documents }`) that `mep compile` sends.
 *
 * @example
 * await extension.compile(compileRequest({ languageId: 'tiny', files: { 'Orders.tiny': 'type Id = Int\n' } }));
 */
export function compileRequest(input: CompileRequestInput): CompileParams {
  const root = rootUri(input.root ?? TEST_SOURCE_ROOT);
  const documents = Object.entries(input.files).map(([path, text]) => sourceDocument(path, text, { languageId: input.languageId, root }));
  const pkg = { name: input.packageName ?? 'local/test', ...(input.exposedModules ? { exposedModules: input.exposedModules } : {}) };
  return { languageId: input.languageId, sources: { root, documents }, package: pkg, dependencies: [], options: { irVersion: '3', ...input.options } };
}

/**
 * A sample project on disk as a compile request: every file under `dir` whose extension is one of
 * `fileExtensions` (e.g. `['.tiny']`), the folder itself as the source root, in path order.
 * Throws MepError(ERR_USAGE) when the folder cannot be read or holds no such file.
 */
export async function sampleProject(dir: string, options: { languageId: string; fileExtensions: readonly string[]; packageName?: string; options?: Record<string, unknown> }): Promise<CompileParams> {
  const folder = resolve(dir);
  let names: string[];
  try {
    names = (await readdir(folder, { recursive: true })).map(String).sort();
  } catch (error) {
    throw new MepError(LocalErrorCode.Usage, `sampleProject: cannot read ${folder}: ${(error as Error).message}.`, { cause: error });
  }
  const files: Record<string, string> = {};
  for (const name of names.filter((n) => options.fileExtensions.includes(extname(n)))) {
    files[relative(folder, join(folder, name)).split(sep).join('/')] = await readTextFile(join(folder, name), { what: 'a source document', maxBytes: HOST_FILE_LIMITS.inputBytes, limit: 'maxMessageBytes' });
  }
  if (Object.keys(files).length === 0) throw new MepError(LocalErrorCode.Usage, `sampleProject: ${folder} holds no ${options.fileExtensions.join(' or ')} file.`);
  return compileRequest({ languageId: options.languageId, files, root: folder, ...(options.packageName ? { packageName: options.packageName } : {}), ...(options.options ? { options: options.options } : {}) });
}

/**
 * The params of `morphir.validator.validate` or `morphir.transform.transform`: the IR, its
 * `irVersion` (from its formatVersion) and `options` (default `{}`).
 */
export function irRequest(ir: MorphirIr, options: Record<string, unknown> = {}): IrInput {
  return { ir: ir as IrInput['ir'], irVersion: String(ir.formatVersion), options };
}
