/**
 * Extraction of an archive file into an empty staging directory, in two passes: the first
 * reads every member's header (streamed, counted against the budget, no data kept) and checks
 * them all (plan.ts), so nothing is written when one is unsafe; the second streams each file's
 * data to disk. Symlinks are made last, so no member is ever written through one, and each is
 * then checked on disk to resolve inside (a target can climb through another link).
 */
import { mkdir, open, realpath, stat, symlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isWithin } from '../../files/path-within.ts';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { createArchiveBudget } from './budget.ts';
import type { ArchiveLimits } from './budget.ts';
import type { ArchiveEntry, DataSink } from './entry.ts';
import { archiveError, drainInto } from './entry.ts';
import { planEntries } from './plan.ts';
import type { PlannedEntry } from './plan.ts';
import { walkTarGz } from './tar.ts';
import { readZipDirectory, zipMemberData } from './zip.ts';

/** What {@link extractArchive} extracts. */
export interface ExtractOptions {
  /** The archive on disk (a private copy: it is read twice). */
  file: string;
  format: 'tar.gz' | 'zip';
  /** An existing empty directory. */
  root: string;
  /** The archive's name for messages (its URL or path as given). */
  archive: string;
  limits: Readonly<ArchiveLimits>;
}

function refuse(archive: string, entry: string, why: string): MepError {
  return new MepError(LocalErrorCode.Registry, `Refusing the archive ${archive}: member ${JSON.stringify(entry)} ${why}. Nothing was installed; ask the publisher for a clean archive.`, {
    data: { archive, entry, reason: 'unsafe-entry' },
  });
}

/** Keep only the execute bits of a stored mode: setuid and world-writable are not carried. */
function fileMode(entry: ArchiveEntry): number {
  return entry.mode !== undefined && entry.mode & 0o111 ? 0o755 : 0o644;
}

/** A sink writing a new file (never one that exists: `wx`); `made` holds the directories made. */
async function fileSink(path: string, mode: number, made: Set<string>): Promise<DataSink> {
  const parent = dirname(path);
  if (!made.has(parent)) {
    await mkdir(parent, { recursive: true });
    made.add(parent);
  }
  const handle = await open(path, 'wx', mode);
  return {
    async write(chunk) {
      await handle.write(chunk);
    },
    close: () => handle.close(),
  };
}

/** Writes one planned member (symlinks are only collected); returns the sink of a file's data. */
async function writeMember(realRoot: string, planned: PlannedEntry, links: PlannedEntry[], made: Set<string>): Promise<DataSink | undefined> {
  const target = resolve(realRoot, planned.relative);
  if (planned.entry.type === 'directory') {
    await mkdir(target, { recursive: true });
    return undefined;
  }
  if (planned.entry.type === 'symlink') {
    links.push(planned);
    return undefined;
  }
  return fileSink(target, fileMode(planned.entry), made);
}

async function makeLinks(realRoot: string, links: readonly PlannedEntry[], archive: string): Promise<void> {
  for (const { entry, relative } of links) {
    const target = resolve(realRoot, relative);
    await mkdir(dirname(target), { recursive: true });
    await symlink(entry.linkTarget as string, target);
  }
  // The lexical checks cannot see a target that climbs through another link (`a -> .`, then
  // `b -> a/..`); the real path can. A dangling link is refused too: it could only point nowhere.
  for (const { entry, relative } of links) {
    const real = await realpath(resolve(realRoot, relative)).catch(() => undefined);
    if (real === undefined) throw refuse(archive, entry.path, `is a symlink to ${JSON.stringify(entry.linkTarget)}, which does not exist in the package`);
    if (!isWithin(real, realRoot)) throw refuse(archive, entry.path, `is a symlink resolving outside the package (${real})`);
  }
}

async function extractTar(options: ExtractOptions, realRoot: string): Promise<void> {
  const headers: ArchiveEntry[] = [];
  await walkTarGz(options.file, options.archive, createArchiveBudget(options.limits, options.archive), async (entry) => {
    headers.push(entry);
    return undefined;
  });
  const plan = planEntries(headers, options.archive);
  const links: PlannedEntry[] = [];
  const made = new Set<string>();
  let index = 0;
  await walkTarGz(options.file, options.archive, createArchiveBudget(options.limits, options.archive), async (entry) => {
    const planned = plan.get(index);
    if (entry.path !== headers[index++]?.path) throw archiveError(options.archive, 'it changed while it was read');
    return planned ? writeMember(realRoot, planned, links, made) : undefined;
  });
  await makeLinks(realRoot, links, options.archive);
}

async function extractZip(options: ExtractOptions, realRoot: string): Promise<void> {
  const size = (await stat(options.file)).size;
  const members = await readZipDirectory(options.file, size, options.archive, createArchiveBudget(options.limits, options.archive));
  const plan = planEntries(members, options.archive);
  const links: PlannedEntry[] = [];
  const made = new Set<string>();
  for (const [index, planned] of plan) {
    const sink = await writeMember(realRoot, planned, links, made);
    if (sink) await drainInto(zipMemberData(options.file, members[index] as (typeof members)[number], options.archive), sink);
  }
  await makeLinks(realRoot, links, options.archive);
}

/**
 * Extracts the archive at `options.file` into `options.root`, refusing unsafe members before
 * anything is written and stopping at the byte and entry budgets.
 *
 * @example
 * await extractArchive({ file, format: 'tar.gz', root: staging, archive: url, limits: DEFAULT_ARCHIVE_LIMITS });
 */
export async function extractArchive(options: ExtractOptions): Promise<void> {
  const realRoot = await realpath(options.root);
  if (options.format === 'zip') await extractZip(options, realRoot);
  else await extractTar(options, realRoot);
}
