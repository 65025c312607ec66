/**
 * `extensions.lock`: per extension id the pinned version, runtime, sha256 of the artifact,
 * where it came from (`source`, and `commit` for git) and the claim set read from it. Older
 * locks that carry only `version` and `sha256` still load.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { toDecodeIssues } from '../protocol/decode.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { writeFileAtomic } from './atomic-write.ts';

/** One pinned extension. Only `version` and `sha256` are required (older locks). */
export const LockEntry = z.looseObject({
  version: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex sha256'),
  runtime: z.enum(['wasm', 'process']).optional(),
  /**
   * sha256 of the installed `extension.json`: its args, env and permissions decide how the
   * artifact runs, so an edit after install refuses to run it just like a changed artifact.
   */
  manifestSha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex sha256').optional(),
  /** A remote install's source: the git spec, or the archive URL including `#sha256=`. */
  source: z.string().optional(),
  /** The git commit that was installed (git sources only). */
  commit: z.string().optional(),
  /** `<os>-<arch>` of the vendored executable, when the package carried per-platform ones. */
  platform: z.string().optional(),
  /** The capability claim set read from the artifact (describe or session fallback). */
  claims: z.unknown().optional(),
});
/** One pinned extension. */
export type LockEntry = z.infer<typeof LockEntry>;

/** The lock document. */
export const LockFile = z.looseObject({
  extensions: z.record(z.string(), LockEntry),
});
/** The lock document. */
export type LockFile = z.infer<typeof LockFile>;

/** Reads a lock; a missing file is an empty lock. Throws MepError(ERR_REGISTRY) naming the file when it is malformed. */
export async function readLock(path: string): Promise<LockFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { extensions: {} };
    throw new MepError(LocalErrorCode.Registry, `Cannot read the lock ${path}: ${(error as Error).message}.`, { cause: error, data: { lock: path } });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new MepError(LocalErrorCode.Registry, `The lock ${path} is not valid JSON (${(error as Error).message}). Restore it from version control or reinstall the extensions.`, {
      data: { lock: path },
    });
  }
  const parsed = LockFile.safeParse(doc);
  if (!parsed.success) {
    const issues = toDecodeIssues(parsed.error);
    const first = issues[0];
    throw new MepError(LocalErrorCode.Registry, `The lock ${path} is malformed (${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'}). Restore it or reinstall the extensions.`, {
      data: { lock: path, issues },
    });
  }
  return parsed.data;
}

/** Writes a lock atomically (temp file + rename), ids sorted so diffs stay small. */
export async function writeLock(path: string, lock: LockFile): Promise<void> {
  const extensions = Object.fromEntries(Object.entries(lock.extensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  await writeFileAtomic(path, `${JSON.stringify({ ...lock, extensions }, null, 2)}\n`);
}

/**
 * Read-modify-write of one lock: `change` edits the document in place (set or delete entries).
 *
 * @example
 * await updateLock(paths.project.lock, (lock) => { delete lock.extensions['acme.crm']; });
 */
export async function updateLock(path: string, change: (lock: LockFile) => void): Promise<LockFile> {
  const lock = await readLock(path);
  change(lock);
  await writeLock(path, lock);
  return lock;
}
