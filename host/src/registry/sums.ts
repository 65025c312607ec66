/**
 * `SHA256SUMS`: one `<sha256>  <path>` line per file of a package (the format `sha256sum`
 * writes and `sha256sum -c` checks), written by `mep pack` and checked by install whenever a
 * package carries one: every file install takes must be listed, with that hash, so a file changed
 * or slipped into the archive after packing is refused. A listed file install does not take is
 * not hashed (a package for several platforms lists executables this host does not install), but
 * it must be in the package: a listing naming a file the package lacks is not the package that was
 * packed (a file lost in transfer or removed). Sums that are not signed cannot prove more than
 * that (whoever removes a file can rewrite them; `#sha256=` pins an archive whole).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';

/** The file's name at the package root. */
export const SUMS_FILE = 'SHA256SUMS';

/** One line of the file. */
export interface SumLine {
  sha256: string;
  /** Relative, forward slashes. */
  path: string;
}

/** The text of a `SHA256SUMS` for `lines`, sorted by path. */
export function formatSums(lines: readonly SumLine[]): string {
  return [...lines]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((l) => `${l.sha256}  ${l.path}\n`)
    .join('');
}

function sumsError(where: string, message: string, data: Record<string, unknown>): MepError {
  return new MepError(LocalErrorCode.Registry, `Refusing the package ${where}: ${message} Nothing was installed; repack it with 'mep pack', or ask the publisher for an intact one.`, {
    data: { source: where, reason: 'sums-mismatch', ...data },
  });
}

/** ERR_LIMIT `sumsEntries`: a listing longer than any package install or `mep pack` takes. */
export function sumsCountError(where: string, packing = false): MepError {
  const limit = HOST_FILE_LIMITS.sumsEntries;
  const what = packing ? `Cannot pack ${where}: it has more than ${limit} files, more than a ${SUMS_FILE} install takes lists (each costs a look for its file). Nothing was written` : `Refusing the package ${where}: its ${SUMS_FILE} lists more than ${limit} entries, more than any package mep packs has (each costs a look for its file). Nothing was installed`;
  return new MepError(LocalErrorCode.Limit, `${what}; ship only the files the extension needs (the manifest's "files").`, {
    data: { source: where, reason: 'too-many-entries', limit: 'sumsEntries', maxEntries: limit },
  });
}

/** Parses `text`; `where` names the package in errors. Blank lines are skipped. */
export function parseSums(text: string, where: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const [n, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    if (sums.size === HOST_FILE_LIMITS.sumsEntries) throw sumsCountError(where);
    // `sha256sum` marks binary mode with '*' in place of the second space.
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line);
    if (!match) throw sumsError(where, `line ${n + 1} of ${SUMS_FILE} is not "<sha256>  <path>".`, { line: n + 1, problem: 'syntax' });
    const path = (match[2] as string).replace(/^\.\//, '');
    // A line names a file of the package: relative, forward slashes, inside it.
    if (/^([/\\]|[A-Za-z]:)/.test(path) || path.includes('\\') || path.includes('\0') || path.split('/').includes('..')) {
      throw sumsError(where, `line ${n + 1} of ${SUMS_FILE} names ${JSON.stringify(path)}, which is not a path inside the package.`, { line: n + 1, file: path, problem: 'unsafe-path' });
    }
    if (sums.has(path)) throw sumsError(where, `${SUMS_FILE} lists ${path} twice.`, { file: path, problem: 'syntax' });
    sums.set(path, (match[1] as string).toLowerCase());
  }
  return sums;
}

/** A file to check: the path it has in the package, and the sha256 of what is taken (the copy's). */
export interface SummedFile {
  origin: string;
  sha256: string;
}

/**
 * Checks the files a package install takes against its `SHA256SUMS` text: each must be listed
 * (under the path it has in the package) with its hash; with `root` (the package's folder), every
 * listed file must be in it. Throws MepError(ERR_REGISTRY, `data.reason: 'sums-mismatch'`,
 * `data.problem` `hash`, `unlisted`, `missing` or `syntax`).
 *
 * @example
 * await checkSums(sumsText, [{ origin: 'extension.json', sha256 }], spec, packageDir);
 */
export async function checkSums(text: string, files: readonly SummedFile[], where: string, root?: string): Promise<void> {
  const sums = parseSums(text, where);
  if (root !== undefined) {
    for (const path of sums.keys()) {
      // parseSums kept the path inside the package; lstat: a listed link is there as a link.
      if (!(await lstat(join(root, ...path.split('/'))).catch(() => undefined))) {
        throw sumsError(where, `its ${SUMS_FILE} lists ${path}, which the package does not have.`, { file: path, problem: 'missing' });
      }
    }
  }
  for (const file of files) {
    const expected = sums.get(file.origin);
    if (expected === undefined) throw sumsError(where, `${file.origin} is not listed in its ${SUMS_FILE}.`, { file: file.origin, problem: 'unlisted' });
    const actual = file.sha256;
    if (actual !== expected) {
      throw sumsError(where, `${file.origin} has sha256 ${actual}, but its ${SUMS_FILE} says ${expected}.`, { file: file.origin, expected, actual, problem: 'hash' });
    }
  }
}
