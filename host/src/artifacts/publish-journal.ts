/**
 * The journal of a publication: a small file beside the output that says which staging tree
 * is being published and how far the swap got, so that whatever interrupts a publication (a
 * signal, SIGKILL, a crash), the next writer to the same output finishes it or undoes it before
 * doing anything else (Node edge). The journal is also the lock: one publication per output.
 *
 * Beside an output `out` in directory P:
 * - `P/.mep-publish-out.json`: the journal, `{format, pid, host, started, output, staging, phase,
 *   identity}` (`identity`: the device and inode of the staging tree and of its `new/`, once the
 *   swap begins; recovery moves or removes only those, see journal-record.ts);
 * - `P/.mep-staging-out-<8 hex>/`: the staging tree, `new/` (what is published) and, once the
 *   old tree was moved aside, `old/`;
 * - `P/.mep-publish-out.json.<pid>.tmp|recovering`: a journal being written, or claimed by a
 *   process that recovers it.
 * The journal appears with its whole content (a hard link to a written file), is replaced by
 * renames, and is removed only after the staging tree is gone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { link, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processRunning } from '../files/process-temp.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { directoryIdentity, isOurDirectory, isOwnEntry, lexists, notOurs, readRecord } from './journal-record.ts';
import type { JournalRecord, PublishPhase } from './journal-record.ts';
import type { OutputLocation } from './output-location.ts';
import { processStartedAt } from './process-start.ts';

export type { PublishPhase } from './journal-record.ts';

/** What the next writer did with an interrupted publication; see {@link recoverPublication}. */
export type RecoveryOutcome = 'none' | 'undone' | 'finished' | 'cleaned';

/** The names beside one output. */
export interface SideNames {
  journal: string;
  /** A fresh staging name. */
  newStaging(): string;
  isStaging(name: string): boolean;
  /** `<journal>.<pid>.<kind>` files: the pid, or undefined for another name. */
  sidePid(name: string, kind: 'tmp' | 'recovering'): number | undefined;
}

/** The side names for output `name`; a long name is shortened with a hash so that all fit in 255 bytes. */
export function sideNamesOf(name: string): SideNames {
  const short = Buffer.byteLength(name) <= 180 ? name : `${name.slice(0, 60)}~${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
  const journal = `.mep-publish-${short}.json`;
  const stagingPrefix = `.mep-staging-${short}-`;
  return {
    journal,
    newStaging: () => `${stagingPrefix}${randomBytes(4).toString('hex')}`,
    isStaging: (entry) => entry.startsWith(stagingPrefix) && /^[0-9a-f]{8}$/.test(entry.slice(stagingPrefix.length)),
    sidePid(entry, kind) {
      if (!entry.startsWith(`${journal}.`) || !entry.endsWith(`.${kind}`)) return undefined;
      const pid = entry.slice(journal.length + 1, entry.length - kind.length - 1);
      return /^[1-9]\d{0,9}$/.test(pid) ? Number(pid) : undefined;
    },
  };
}

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

// Journals this process holds: its own pid on one of them is not a stale one.
const held = new Set<string>();

/**
 * True when the process that wrote `record` may still be running: same host, its pid alive,
 * and (where the start time of a process can be read) started before the journal was written,
 * so that a pid reused after a reboot or in a fresh container does not hold an output forever.
 */
async function ownerAlive(record: JournalRecord, journalPath: string): Promise<boolean> {
  if (record.host !== hostname()) return true;
  if (record.pid === process.pid) return held.has(journalPath);
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    if (errno(error) !== 'EPERM') return false;
  }
  const startedAt = await processStartedAt(record.pid);
  const written = Date.parse(record.started);
  return startedAt === undefined || Number.isNaN(written) || startedAt <= written + 1_000;
}

/**
 * Finishes or undoes the publication `record` describes, so that the output is either its old
 * tree or its new one and nothing of the publication is left but the journal (which the caller
 * removes). A new tree that never started to move is discarded (the output may have changed
 * since); one that was half swapped (the output moved aside, the new tree not yet in) is moved in.
 */
async function settle(location: OutputLocation, names: SideNames, record: JournalRecord, journal: string): Promise<RecoveryOutcome> {
  // Only a staging tree of this very output, made by this user and recorded by the journal, is touched.
  if (!names.isStaging(record.staging)) throw notOurs(journal, record.staging, `is not a staging tree of ${location.path}`);
  const staging = join(location.parent, record.staging);
  if (record.phase !== 'staging' && record.identity === undefined) throw notOurs(journal, staging, 'is not recorded by the journal (an older mep wrote it)');
  const hasStaging = await isOurDirectory(journal, staging, record.identity?.staging);
  let outcome: RecoveryOutcome = record.phase === 'staging' ? 'undone' : 'cleaned';
  if (record.phase === 'swapping' && hasStaging) {
    const fresh = join(staging, 'new');
    const [hasFresh, hasOutput, hasOld] = await Promise.all([isOurDirectory(journal, fresh, record.identity?.fresh), lexists(location.path), lexists(join(staging, 'old'))]);
    if (hasFresh && !hasOutput) {
      await rename(fresh, location.path);
      outcome = 'finished';
    } else if (hasFresh && hasOutput && hasOld) {
      throw new MepError(
        LocalErrorCode.Usage,
        `An interrupted publication to ${location.path} moved the old tree to ${join(staging, 'old')}, and something created ${location.path} again since; mep leaves both as they are. Keep the tree you want at ${location.path}, then remove ${staging} and ${join(location.parent, names.journal)}.`,
        { data: { outDir: location.path, staging } },
      );
    } else if (hasFresh) {
      outcome = 'undone';
    }
  }
  if (hasStaging) await rm(staging, { recursive: true, force: true });
  return outcome;
}

/** Claims a journal of a dead owner by renaming it to a name of this process, or undefined when another process claimed it first. */
async function claim(location: OutputLocation, names: SideNames, from: string): Promise<string | undefined> {
  const to = join(location.parent, `${names.journal}.${process.pid}.recovering`);
  try {
    await rename(join(location.parent, from), to);
    return to;
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function busy(location: OutputLocation, journal: string, record: JournalRecord): MepError {
  const where = record.host === hostname() ? `process ${record.pid}` : `process ${record.pid} on ${record.host}`;
  return new MepError(
    LocalErrorCode.Usage,
    `Another mep (${where}, since ${record.started}) is writing artifacts to ${location.path}. Wait for it to finish; if no mep is running there, remove ${journal} and run again.`,
    { data: { outDir: location.path, journal, pid: record.pid, host: record.host } },
  );
}

/**
 * Settles every interrupted publication to `location` whose owner is gone: the journal, and
 * journals that a recovering process claimed and did not finish. Throws ERR_USAGE when a live
 * process is publishing there.
 */
async function recoverAll(location: OutputLocation, names: SideNames): Promise<RecoveryOutcome> {
  let outcome: RecoveryOutcome = 'none';
  const entries = await readdir(location.parent);
  const claims = entries.filter((entry) => names.sidePid(entry, 'recovering') !== undefined);
  for (const entry of [...claims, ...(entries.includes(names.journal) ? [names.journal] : [])]) {
    const path = join(location.parent, entry);
    const record = await readRecord(path);
    if (record === undefined) continue;
    const claimer = names.sidePid(entry, 'recovering');
    // A live process recovering it, or the live owner of the journal: someone else is at work.
    if (claimer !== undefined ? claimer !== process.pid && processRunning(claimer) : await ownerAlive(record, path)) {
      throw busy(location, path, claimer === undefined ? record : { ...record, pid: claimer, host: hostname() });
    }
    const claimed = await claim(location, names, entry);
    if (claimed === undefined) continue;
    try {
      // What was claimed is read again: the file checked above may have been replaced meanwhile.
      const settled = await readRecord(claimed);
      if (settled !== undefined) outcome = await settle(location, names, settled, path);
    } catch (error) {
      // Refused: the journal goes back where it was, as everything else stays.
      await rename(claimed, path).catch(() => undefined);
      throw error;
    }
    await unlink(claimed);
  }
  return outcome;
}

/** Removes side files and staging trees of this output that no live publication owns. */
async function removeLeftovers(location: OutputLocation, names: SideNames, keep: string): Promise<void> {
  for (const entry of await readdir(location.parent)) {
    const pid = names.sidePid(entry, 'tmp');
    const path = join(location.parent, entry);
    // Only this user's files and real directories of the exact shapes: a link or another's entry stays.
    if (pid !== undefined && pid !== process.pid && !processRunning(pid) && (await isOwnEntry(path, 'file'))) await rm(path, { force: true });
    else if (names.isStaging(entry) && entry !== keep && (await isOwnEntry(path, 'directory'))) await rm(path, { recursive: true, force: true });
  }
}

/** A held publication lock; see {@link acquirePublication}. */
export interface Publication {
  /** The staging tree's absolute path (not created yet). */
  readonly staging: string;
  /** Records the next phase (atomically: the journal is replaced by a rename). */
  setPhase(phase: PublishPhase): Promise<void>;
  /** Removes the journal: call only once the staging tree is gone. */
  release(): Promise<void>;
  /** Leaves the journal for the next writer to settle (this process no longer counts as its owner). */
  abandon(): void;
}

/**
 * Takes the lock on `location` for one publication: settles any interrupted publication there
 * first (finishing or undoing it), then writes the journal, which names a fresh staging tree,
 * and removes leftovers of earlier runs. Throws ERR_USAGE when another live mep publishes there.
 */
export async function acquirePublication(location: OutputLocation): Promise<Publication> {
  const names = sideNamesOf(location.name);
  const journal = join(location.parent, names.journal);
  const temp = join(location.parent, `${names.journal}.${process.pid}.tmp`);
  const staging = names.newStaging();
  const record: JournalRecord = { format: 1, pid: process.pid, host: hostname(), started: new Date().toISOString(), output: location.path, staging, phase: 'staging' };
  for (let attempt = 0; ; attempt++) {
    await recoverAll(location, names);
    await writeFile(temp, `${JSON.stringify(record)}\n`, { mode: 0o644 });
    try {
      // A hard link makes the journal appear with its whole content, and only if it is absent.
      await link(temp, journal).catch(async (error: unknown) => {
        if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(errno(error) ?? '')) throw error;
        // A file system without hard links: create it exclusively instead.
        await writeFile(journal, `${JSON.stringify(record)}\n`, { mode: 0o644, flag: 'wx' });
      });
      await unlink(temp);
      break;
    } catch (error) {
      await unlink(temp);
      if (errno(error) !== 'EEXIST' || attempt >= 3) throw error;
    }
  }
  held.add(journal);
  await removeLeftovers(location, names, staging);
  return {
    staging: join(location.parent, staging),
    async setPhase(phase) {
      // The trees recovery may move are recorded before anything moves, by their device and inode.
      if (phase === 'swapping') record.identity = { staging: await directoryIdentity(join(location.parent, staging)), fresh: await directoryIdentity(join(location.parent, staging, 'new')) };
      record.phase = phase;
      await writeFile(temp, `${JSON.stringify(record)}\n`, { mode: 0o644 });
      await rename(temp, journal);
    },
    async release() {
      held.delete(journal);
      await rm(temp, { force: true });
      await unlink(journal);
    },
    abandon() {
      held.delete(journal);
    },
  };
}

/**
 * Finishes or undoes an interrupted publication to the output at `location`, if there is one
 * whose owner is gone, and reports which. Throws ERR_USAGE while a live mep publishes there.
 */
export async function recoverPublication(location: OutputLocation): Promise<RecoveryOutcome> {
  const names = sideNamesOf(location.name);
  const outcome = await recoverAll(location, names);
  return outcome;
}
