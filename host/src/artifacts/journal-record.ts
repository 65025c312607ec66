/**
 * The publish journal's record, and the checks that what recovery is about to move or remove is
 * what the publication created: the journal is a regular file of this user (never a FIFO, a
 * device or a link; read bounded), and each tree it names is a real directory of this user whose
 * device and inode are the ones the journal recorded when the swap began. Anything else (a
 * crafted journal beside the output whose staging name is a link to a folder elsewhere, a tree
 * replaced by another) is refused with ERR_USAGE `data.reason: 'not-ours'`, and everything is
 * left in place. Node edge.
 */
import type { BigIntStats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { parseJson } from '../protocol/json-parse.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { isMissingFile, openRegularFile, readOpenedFile } from '../files/regular-file.ts';

/**
 * How far a publication got: building the new tree (`staging`), swapping it in (`swapping`),
 * or removing what is left once the new tree is in place (`cleanup`).
 */
export type PublishPhase = 'staging' | 'swapping' | 'cleanup';

/** The journal's content. */
export interface JournalRecord {
  format: 1;
  pid: number;
  host: string;
  /** When the journal was created, ISO 8601. */
  started: string;
  /** The output's path, for people reading the file. */
  output: string;
  /** The staging tree's name in the output's parent. */
  staging: string;
  phase: PublishPhase;
  /** `<dev>:<ino>` of the staging tree and of its `new/`, recorded when the swap begins. */
  identity?: { staging: string; fresh: string };
}

const PHASES: readonly string[] = ['staging', 'swapping', 'cleanup'];
const uid = process.getuid?.();

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** The refusal of a journal or tree this mechanism did not create; `problem` says what is wrong. */
export function notOurs(journal: string, what: string, problem: string): MepError {
  return new MepError(
    LocalErrorCode.Usage,
    `The publication journal ${journal} names ${what}, which ${problem}: mep moves or removes only what it created, so it left everything as it is. If no mep is writing there, remove the journal and what it names yourself, then run again.`,
    { data: { journal, path: what, reason: 'not-ours', problem } },
  );
}

/** The `<dev>:<ino>` of the directory `path` (not through a link). */
export async function directoryIdentity(path: string): Promise<string> {
  const info = await lstat(path, { bigint: true });
  return `${info.dev}:${info.ino}`;
}

function isRecord(value: unknown): value is JournalRecord {
  const v = value as Partial<JournalRecord> | null;
  if (typeof v !== 'object' || v === null || v.format !== 1 || !Number.isInteger(v.pid) || typeof v.host !== 'string' || typeof v.started !== 'string') return false;
  if (typeof v.staging !== 'string' || !PHASES.includes(String(v.phase))) return false;
  return v.identity === undefined || (typeof v.identity === 'object' && v.identity !== null && typeof v.identity.staging === 'string' && typeof v.identity.fresh === 'string');
}

/**
 * The record in the journal file `path`, or undefined when there is none. Throws ERR_USAGE when
 * it is not a regular file of this user (`not-a-file`, `not-ours`) or not a record mep writes.
 */
export async function readRecord(path: string): Promise<JournalRecord | undefined> {
  const file = { what: 'the publication journal', maxBytes: HOST_FILE_LIMITS.smallFileBytes, noFollow: true };
  let text: string;
  try {
    const opened = await openRegularFile(path, file);
    try {
      if (uid !== undefined && opened.info.uid !== uid) throw notOurs(path, path, `belongs to user ${opened.info.uid}, not to this one`);
      text = (await readOpenedFile(path, opened, file)).toString('utf8');
    } finally {
      await opened.handle.close();
    }
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    value = undefined;
  }
  if (isRecord(value)) return value;
  throw new MepError(LocalErrorCode.Usage, `The publication journal ${path} is not one mep wrote; remove it if no mep is writing there, and run again.`, { data: { journal: path, reason: 'not-a-journal' } });
}

/**
 * Checks that `path` is a directory this publication made: a real directory (not a link) of this
 * user, and, when `identity` is given, the very one recorded. Returns false when nothing is
 * there; throws {@link notOurs} otherwise.
 */
export async function isOurDirectory(journal: string, path: string, identity: string | undefined): Promise<boolean> {
  let info: BigIntStats;
  try {
    info = await lstat(path, { bigint: true });
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
  if (info.isSymbolicLink() || !info.isDirectory()) throw notOurs(journal, path, `is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}`);
  if (uid !== undefined && info.uid !== BigInt(uid)) throw notOurs(journal, path, `belongs to user ${info.uid}, not to this one`);
  if (identity !== undefined && `${info.dev}:${info.ino}` !== identity) throw notOurs(journal, path, 'is not the directory the journal recorded');
  return true;
}

/** True when something (anything, a link too) is at `path`. */
export async function lexists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
}

/** True when `path` is a regular file or directory of this user (what `removeLeftovers` may remove), not a link. */
export async function isOwnEntry(path: string, kind: 'file' | 'directory'): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined || (kind === 'file' ? !info.isFile() : !info.isDirectory())) return false;
  return uid === undefined || info.uid === uid;
}
