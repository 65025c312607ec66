/**
 * The source map a guest ships with: esbuild's map of the bundle, its sources named relative to
 * the extension's project (the nearest folder with a package.json above the entry), dependencies
 * as their `node_modules/…` paths and the guest PDK of a checkout as `mep-runtime/…`, with the
 * code that is not the author's in the map's standard `ignoreList` (so the host, like a
 * debugger, names the author's first frame) and without the sources' text unless asked.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SourceMapJson } from '../../host/src/transport/source-map/source-map.ts';

/** The folder whose paths a guest's source map uses: the nearest one with a package.json above `entry`. */
export function projectRootOf(entry: string, fallback: string): string {
  for (let dir = dirname(resolve(entry)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return fallback;
  }
}

/** Options of {@link finishBundleMap}. */
export interface FinishMapOptions {
  /** The folder esbuild wrote the map relative to (its outfile's folder): the project root. */
  projectRoot: string;
  /** The generated file's name as the engine reports it in frames (`guest.js`, `extension.mjs`). */
  file: string;
  /** mep-runtime's own folder: sources under it (the guest PDK of a checkout) are named `mep-runtime/…`. */
  runtimeRoot: string;
  /** Sources of generated glue (the PDK wrapper module), never the author's. */
  generated: readonly string[];
  /** Keep `sourcesContent` (the text of every source) in the map. Default false. */
  sourcesContent?: boolean;
  /**
   * For a map written beside its script: the project root relative to the map's folder, so that
   * debuggers resolve the sources as the standard says (sourceRoot + source, from the map's URL)
   * while `mep` shows them relative to the project.
   */
  sourceRoot?: string;
}

const toPosix = (path: string): string => path.split(sep).join('/');

/**
 * Rewrites esbuild's map of a guest bundle as described above; returns the JSON text.
 *
 * @example
 * const map = finishBundleMap(esbuildMap, { projectRoot, file: 'guest.js', runtimeRoot: REPO_ROOT, generated: [] });
 */
export function finishBundleMap(json: string, options: FinishMapOptions): string {
  const map = SourceMapJson.parse(JSON.parse(json));
  const ignoreList: number[] = [];
  const sources = map.sources.map((source, index) => {
    if (source === null) return source;
    const absolute = isAbsolute(source) ? source : resolve(options.projectRoot, source);
    const inProject = toPosix(relative(options.projectRoot, absolute));
    const modules = inProject.split('/').indexOf('node_modules');
    let name = inProject;
    let ignored = options.generated.includes(source);
    if (modules >= 0) {
      name = inProject.split('/').slice(modules).join('/');
      ignored = true;
    } else if (!absolute.startsWith(options.projectRoot + sep) && absolute.startsWith(options.runtimeRoot + sep)) {
      name = `mep-runtime/${toPosix(relative(options.runtimeRoot, absolute))}`;
      ignored = true;
    }
    if (ignored) ignoreList.push(index);
    return name;
  });
  const out: SourceMapJson = { version: 3, file: options.file, ...(options.sourceRoot ? { sourceRoot: options.sourceRoot } : {}), sources, names: map.names ?? [], mappings: map.mappings, ignoreList };
  if (options.sourcesContent && map.sourcesContent) out.sourcesContent = map.sourcesContent;
  return JSON.stringify(out);
}
