/**
 * The record `mep build` writes beside its output (`<out>.build.json`): the entry it was built
 * from, the runtime, the output's sha256 and the sha256 of every source file the bundle read, so
 * that `mep pack` can tell a build that is older than its sources (and `mep build` without
 * arguments which entry made the manifest's artifact). The record names the files of the project
 * (the folder holding both the entry and the output) relative to the output's folder, so a moved
 * or copied project keeps its record, and files outside it (the PDK, a dependency elsewhere) by
 * their absolute paths. An output the record does not describe (another sha256: built some other way)
 * is not judged. Every file it hashes is read as a regular file within its bound (the output
 * never through a link: `mep build` writes it by rename), so a FIFO or `/dev/zero` in its place
 * is no build of this record, never read. Node edge.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { readRegularFileSync } from '../files/regular-file.ts';
import { parseJson } from '../protocol/json-parse.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';

const FORMAT = 'mep-build-record-1';

/** What a build recorded. */
export interface BuildRecord {
  format: string;
  /** The entry source, relative to the output's folder (`/`-separated). */
  entry: string;
  runtime: 'wasm' | 'process';
  /** sha256 of the output. */
  sha256: string;
  /** [source relative to the output's folder, its sha256] for every file the bundle read. */
  inputs: [string, string][];
}

/** The record's path for `outFile`. */
export const buildRecordPath = (outFile: string): string => `${outFile}.build.json`;

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The sha256 of the build's output, read as a regular file (not a link) of at most the largest artifact. */
const outputDigest = (outFile: string): string => sha256(readRegularFileSync(outFile, { what: 'the build output', maxBytes: HOST_FILE_LIMITS.artifactBytes, noFollow: true }));

/** The sha256 of a source, or '' (never a digest: changed) when it is not a regular file within `inputBytes`. */
function sourceDigest(path: string): string {
  try {
    return sha256(readRegularFileSync(path, { what: 'a source of the build', maxBytes: HOST_FILE_LIMITS.inputBytes }));
  } catch {
    return '';
  }
}
const posix = (path: string): string => path.split(sep).join('/');

/** The deepest folder holding both `a` and `b` (absolute paths). */
function commonFolder(a: string, b: string): string {
  let folder = a;
  while (relative(folder, b).startsWith('..') && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
}

/** Writes the record of a build of `entry` to `outFile` from `inputs` (absolute paths), atomically. */
export async function writeBuildRecord(outFile: string, entry: string, runtime: 'wasm' | 'process', inputs: readonly string[]): Promise<void> {
  const dir = dirname(outFile);
  const project = commonFolder(dirname(resolve(entry)), resolve(dir));
  const named = (f: string): string => {
    const within = relative(project, f);
    return within.startsWith('..') || isAbsolute(within) ? posix(resolve(f)) : posix(relative(dir, f));
  };
  const record: BuildRecord = {
    format: FORMAT,
    entry: posix(relative(dir, entry)),
    runtime,
    sha256: outputDigest(outFile),
    // A generated module esbuild names (the PDK wrapper) is no file: nothing to record.
    inputs: inputs.flatMap((f): [string, string][] => (existsSync(f) ? [[named(f), sourceDigest(f)]] : [])),
  };
  await writeFileAtomic(buildRecordPath(outFile), `${JSON.stringify(record)}\n`);
}

/** The record of `outFile` when there is one that describes it (its sha256), else undefined. */
export function readBuildRecord(outFile: string): (BuildRecord & { entryPath: string }) | undefined {
  let record: BuildRecord;
  try {
    record = parseJson(readRegularFileSync(buildRecordPath(outFile), { what: 'the build record', maxBytes: HOST_FILE_LIMITS.smallFileBytes }).toString('utf8')) as BuildRecord;
    if (record.format !== FORMAT || typeof record.entry !== 'string' || !Array.isArray(record.inputs)) return undefined;
    if (record.sha256 !== outputDigest(outFile)) return undefined;
  } catch {
    return undefined;
  }
  return { ...record, entryPath: resolve(dirname(outFile), record.entry) };
}

/**
 * The recorded sources of `outFile` that changed or vanished since it was built (relative to cwd);
 * empty when none did or there is no record. A source is read only as a regular file within
 * `HOST_FILE_LIMITS.inputBytes`, once however often the record names it: a FIFO, a device or a
 * larger file (a crafted record) counts as changed, unread.
 */
export function staleSources(outFile: string, cwd: string): string[] {
  const record = readBuildRecord(outFile);
  if (!record) return [];
  const dir = dirname(outFile);
  const digests = new Map<string, string>();
  const digestOf = (path: string): string => {
    if (!digests.has(path)) digests.set(path, sourceDigest(path));
    return digests.get(path) as string;
  };
  return record.inputs
    .filter((entry) => {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string') return true;
      const digest = digestOf(resolve(dir, entry[0]));
      return digest === '' || digest !== entry[1];
    })
    .map((entry) => relative(cwd, resolve(dir, String(entry[0]))));
}
