/**
 * `extensions.lock`: per extension id the pinned version, runtime, sha256 of the artifact (for
 * an `http` extension, of its manifest, the only file installed, with its `url` and `identity`),
 * where it came from (`source`, and `commit` for git) and the claim set read from it. Older
 * locks that carry only `version` and `sha256` still load.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { toDecodeIssues } from '../protocol/decode.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { withFileLock } from '../files/file-lock.ts';
import { isMissingFile, readRegularFile } from '../files/regular-file.ts';
import { parseJsonFile } from '../files/json-file.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { ExtensionIdText } from './extension-id.ts';
import type { ExtensionId } from './extension-id.ts';

/**
 * A package's files by path to their sha256. The paths are data: a file may be named `__proto__`,
 * which a record schema would drop (its pin lost, the package refused as unpinned); the lock's
 * reader keeps it an own member, and it is looked up with `Object.hasOwn`.
 */
const FilesPin = z.custom<Record<string, string>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)),
  'an object of package paths to lowercase hex sha256',
);

/** One pinned extension. Only `version` and `sha256` are required (older locks). */
export const LockEntry = z.looseObject({
  version: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex sha256'),
  runtime: z.enum(['wasm', 'process', 'http']).optional(),
  /**
   * sha256 of the installed `extension.json`: its args, env and permissions decide how the
   * artifact runs, so an edit after install refuses to run it just like a changed artifact.
   */
  manifestSha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex sha256').optional(),
  /**
   * sha256 of every other installed file of the package (`files`, the entry's source map), by
   * its path in the package: all are checked before every session (package-pin.ts).
   */
  files: FilesPin.optional(),
  /** A remote install's source: the git spec, or the archive URL including `#sha256=`. */
  source: z.string().optional(),
  /** The git commit that was installed (git sources only). */
  commit: z.string().optional(),
  /** `<os>-<arch>` of the vendored executable, when the package carried per-platform ones. */
  platform: z.string().optional(),
  /** `http`: the URL the extension is served at (its manifest's `url`). */
  url: z.string().optional(),
  /**
   * `http`: the identity the server reported at install (describe). The lock cannot hash code
   * that runs elsewhere; a server that now reports another id or version is refused at run.
   */
  identity: z.looseObject({ id: z.string(), version: z.string() }).optional(),
  /** The capability claim set read from the artifact (describe or session fallback). */
  claims: z.unknown().optional(),
});
/** One pinned extension. */
export type LockEntry = z.infer<typeof LockEntry>;

/**
 * The lock document. Its keys must be plain ids: a hand-edited or hostile key such as `../../src`
 * makes the whole lock unreadable (no command then acts on it) instead of naming a path.
 */
export const LockFile = z.looseObject({
  extensions: z.record(ExtensionIdText, LockEntry),
});
/** The lock document. */
export type LockFile = z.infer<typeof LockFile>;

/**
 * Reads a lock; a missing file is an empty lock. Throws MepError(ERR_REGISTRY) naming the file when it is
 * malformed, ERR_LIMIT when it is larger than the host reads (`HOST_FILE_LIMITS.lockBytes`).
 */
export async function readLock(path: string): Promise<LockFile> {
  return (await readLockFile(path)).lock;
}

/** A lock as read, with the sha256 of the very bytes decoded (what `mep trust` records); none when the file is missing. */
export interface LockRead {
  lock: LockFile;
  sha256?: string;
}

/** {@link readLock} with the sha256 of the bytes it decoded. */
export async function readLockFile(path: string): Promise<LockRead> {
  const file = { what: 'the lock', code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.lockBytes, noFollow: true } as const;
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path, file);
  } catch (error) {
    if (isMissingFile(error)) return { lock: { extensions: {} } };
    throw withLockPath(error, path);
  }
  const text = bytes.toString('utf8');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let doc: unknown;
  try {
    doc = parseJsonFile(path, text, { ...file, keys: { dataAt: lockDataAt }, remedy: 'Restore it from version control or reinstall the extensions.' });
  } catch (error) {
    throw withLockPath(error, path);
  }
  const parsed = LockFile.safeParse(doc);
  if (!parsed.success) {
    const badKey = badIdKey(doc);
    if (badKey !== undefined) {
      throw new MepError(
        LocalErrorCode.Registry,
        `The lock ${path} has an entry ${JSON.stringify(badKey)}, which is not a plain extension id; nothing was read or changed. Remove that entry from the file (it was edited by hand or comes from an untrusted source), then reinstall what it should pin.`,
        { data: { lock: path, extension: badKey, reason: 'bad-lock-id' } },
      );
    }
    const issues = toDecodeIssues(parsed.error);
    const first = issues[0];
    throw new MepError(LocalErrorCode.Registry, `The lock ${path} is malformed (${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'}). Restore it or reinstall the extensions.`, {
      data: { lock: path, issues },
    });
  }
  return { lock: parsed.data, sha256 };
}

/**
 * Where the lock's keys are data: anything in a pinned claim set, and the paths of an entry's
 * `files` (a package may hold a file named `__proto__` or `constructor`; its pin is an own member,
 * looked up with `Object.hasOwn`). An id is never a hostile key.
 */
function lockDataAt(path: readonly string[]): boolean {
  return path[0] === 'extensions' && ((path.length >= 3 && path[2] === 'claims') || (path.length === 3 && path[2] === 'files'));
}

/** `error` (a refusal of the file) with the lock named in its data as every lock error names it. */
function withLockPath(error: unknown, path: string): unknown {
  if (error instanceof MepError && typeof error.data === 'object' && error.data !== null) Object.assign(error.data, { lock: path });
  return error;
}

/** The first key of `doc.extensions` that is not a plain id. */
function badIdKey(doc: unknown): string | undefined {
  const extensions = typeof doc === 'object' && doc !== null ? (doc as { extensions?: unknown }).extensions : undefined;
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  return Object.keys(extensions).find((key) => !ExtensionIdText.safeParse(key).success);
}

/** The entry pinned for `id`, never an inherited member (`constructor`, `toString`). */
export function lockEntryOf(lock: LockFile, id: ExtensionId): LockEntry | undefined {
  return Object.hasOwn(lock.extensions, id) ? lock.extensions[id] : undefined;
}

/** Writes a lock atomically (temp file + rename), ids sorted so diffs stay small; returns the sha256 of the bytes written. */
export async function writeLock(path: string, lock: LockFile): Promise<string> {
  const badKey = badIdKey(lock);
  if (badKey !== undefined) {
    throw new MepError(LocalErrorCode.Registry, `Refusing to write the lock ${path}: its entry ${JSON.stringify(badKey)} is not a plain extension id. Nothing was written.`, {
      data: { lock: path, extension: badKey, reason: 'bad-lock-id' },
    });
  }
  const extensions = Object.fromEntries(Object.entries(lock.extensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const text = `${JSON.stringify({ ...lock, extensions }, null, 2)}\n`;
  // Never a lock the host cannot read back: every later command would be refused.
  const size = Buffer.byteLength(text, 'utf8');
  if (size > HOST_FILE_LIMITS.lockBytes) {
    throw new MepError(
      LocalErrorCode.Limit,
      `Refusing to write the lock ${path}: it would be ${size} bytes, more than the ${HOST_FILE_LIMITS.lockBytes} the host reads (a package pins each of its files there). Nothing was written; install packages with fewer files, or remove some with 'mep remove'.`,
      { data: { lock: path, limit: 'lockBytes', limitBytes: HOST_FILE_LIMITS.lockBytes, bytes: size } },
    );
  }
  await writeFileAtomic(path, text);
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Runs `change` (a read-modify-write of the lock at `path`) holding `<path>.lock`, so two `mep
 * install`/`mep remove` at once never lose each other's entry (the same lock helper as
 * `trusted.json`); MepError(ERR_USAGE, `reason: 'locked'`) when another live mep holds it past 10 s.
 */
export async function withLockHeld<T>(path: string, change: () => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true });
  return withFileLock(`${path}.lock`, change, { what: `the lock ${path}` });
}

/**
 * Read-modify-write of one lock, under its lock file: `change` edits the document in place (set or delete entries).
 *
 * @example
 * await updateLock(paths.project.lock, (lock) => { delete lock.extensions['acme.crm']; });
 */
export async function updateLock(path: string, change: (lock: LockFile) => void): Promise<LockFile> {
  return withLockHeld(path, async () => {
    const lock = await readLock(path);
    change(lock);
    await writeLock(path, lock);
    return lock;
  });
}
