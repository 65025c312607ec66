/**
 * Loose source files (`mep compile A.elm B.elm`) as one compile request: MEP 0.1's one-file path,
 * grown to several files. The package is synthesized (`local/example`, every module public) and
 * the root is the folder the files share, so each keeps its relative identity. Node-only.
 */
import { dirname, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CompileParams } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { readTextFile } from '../files/regular-file.ts';

/** MEP 0.1, Elm frontend delivery plan, phase 3: the package of a compile without a project. */
export const ONE_FILE_PACKAGE = 'local/example';

/** The deepest folder that holds every one of `paths` (absolute). */
export function commonFolder(paths: readonly string[]): string {
  const split = paths.map((p) => dirname(p).split(sep));
  const first = split[0] ?? [];
  let n = 0;
  while (n < first.length && split.every((parts) => parts[n] === first[n])) n++;
  const joined = first.slice(0, n).join(sep);
  return joined === '' ? sep : joined;
}

/**
 * Reads `files` into one compile request in `languageId`. Throws a usage error (`ERR_USAGE`)
 * naming a file that cannot be read or is given twice.
 *
 * @example
 * const params = await compileRequestForFiles(['src/Main.elm', 'src/Util.elm'], 'elm');
 */
export async function compileRequestForFiles(files: readonly string[], languageId: string, cwd = process.cwd()): Promise<CompileParams> {
  const paths = files.map((f) => resolve(cwd, f));
  const twice = paths.find((p, i) => paths.indexOf(p) !== i);
  if (twice !== undefined) throw new MepError(LocalErrorCode.Usage, `${twice} is given twice; name each source file once.`, { data: { file: twice } });
  const documents = await Promise.all(
    paths.map(async (path) => {
      // A regular file only (never a FIFO or a device), at most as large as any message.
      const text = await readTextFile(path, { what: 'the source file', maxBytes: HOST_FILE_LIMITS.inputBytes, limit: 'maxMessageBytes' });
      return { uri: pathToFileURL(path).href, languageId, version: 1, text };
    }),
  );
  const root = commonFolder(paths);
  return { languageId, sources: { root: pathToFileURL(root.endsWith(sep) ? root : `${root}${sep}`).href, documents }, package: { name: ONE_FILE_PACKAGE } };
}
