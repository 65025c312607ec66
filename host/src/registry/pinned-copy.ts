/**
 * Where an installed process extension runs from: a private, read-only copy of the entry made
 * from the very bytes that were hashed against the lock, so that nothing done to the package
 * after the check (the entry renamed over, rewritten in place) changes what runs. The copies
 * live in one directory of this process (`$TMPDIR/mep-run-<pid>-XXXXXX`, mode 0700), one per
 * verified hash, reused by later sessions while the copy is unchanged (its inode, size and
 * times as made), removed when the process exits, and removed by the next `mep` when a killed
 * one left them. The working directory stays the package directory. Node edge.
 */
import { chmod, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, parse } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { copyRegularFile, hashRegularFile } from '../files/copy-file.ts';
import { makeProcessTemp } from '../files/process-temp.ts';
import { readJsonFile } from '../files/json-file.ts';
import { mismatch } from './integrity.ts';
import type { ArtifactPin } from './integrity.ts';

const PREFIX = 'mep-run-';

/** The identity of a copy as made: any write to it, a chmod or a replacement changes one of these. */
interface Made {
  path: string;
  identity: string;
}

const made = new Map<string, Made>();
let copies = 0;
let privateDir: string | undefined;

const identityOf = (info: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number; mode: number }): string =>
  [info.dev, info.ino, info.size, info.mtimeMs, info.ctimeMs, info.mode].join(':');

/** This process's run directory, made on first use and removed at exit. */
function runDirectory(): string {
  privateDir ??= makeProcessTemp(PREFIX).dir;
  return privateDir;
}

/**
 * How Node.js will load a `.js` entry where it is installed: the `type` of the nearest
 * `package.json` above it (`commonjs` without one). The copy gets the same, in a `package.json`
 * beside it.
 */
async function moduleTypeOf(entry: string): Promise<string> {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    const doc = await readJsonFile(join(dir, 'package.json'), { what: 'the package.json', maxBytes: HOST_FILE_LIMITS.smallFileBytes, keys: 'data' }).catch(() => undefined);
    if (doc !== undefined) return typeof doc === 'object' && doc !== null && (doc as { type?: unknown }).type === 'module' ? 'module' : 'commonjs';
    if (dirname(dir) === dir) return 'commonjs';
  }
}

/**
 * The path of a private, read-only copy of the installed entry `pin.file`, made from bytes that
 * hash to `pin.expected`; throws the hash-mismatch refusal of `verifyArtifact` otherwise. The
 * entry is hashed on every call (as before every session); the copy is made once per hash.
 *
 * @example
 * const run = await pinnedCopy({ extension: id, file: installed.artifact, expected: pin.sha256, lock });
 */
export async function pinnedCopy(pin: ArtifactPin): Promise<string> {
  const file = { what: `the entry of extension '${pin.extension}'`, code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.artifactBytes, noFollow: true } as const;
  const { sha256 } = await hashRegularFile(pin.file, file).catch((error: unknown) => {
    throw new MepError(LocalErrorCode.Registry, `Cannot read the artifact ${pin.file} of extension '${pin.extension}' (${(error as Error).message}). Reinstall it with 'mep install'.`, {
      cause: error,
      data: { extension: pin.extension, file: pin.file, reason: 'missing-artifact' },
    });
  });
  if (sha256 !== pin.expected) throw mismatch(pin, sha256);
  const type = parse(pin.file).ext === '.js' ? await moduleTypeOf(pin.file) : '';
  const key = `${sha256}/${basename(pin.file)}/${type}`;
  const known = made.get(key);
  if (known !== undefined && identityOf(await lstat(known.path).catch(() => ({ dev: 0, ino: 0, size: 0, mtimeMs: 0, ctimeMs: 0, mode: 0 }))) === known.identity) return known.path;
  const dir = join(runDirectory(), `${sha256.slice(0, 16)}-${++copies}`);
  await mkdir(dir, { mode: 0o700 });
  const path = join(dir, basename(pin.file));
  try {
    if (type !== '') await writeFile(join(dir, 'package.json'), `${JSON.stringify({ type })}\n`, { mode: 0o400 });
    // Copied from the entry again, and hashed as it is copied: the copy is what was pinned, or nothing runs.
    const copied = await copyRegularFile(pin.file, path, file, 0o700);
    if (copied.sha256 !== pin.expected) throw mismatch(pin, copied.sha256);
    await chmod(path, 0o500);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  made.set(key, { path, identity: identityOf(await lstat(path)) });
  return path;
}
