/**
 * The record of a type check that found nothing: every file the checker read (except
 * TypeScript's own libraries) with the hash of its content. While each of them is unchanged the
 * next build skips the check without loading TypeScript at all, which is most of `mep build`'s
 * start-up time. A changed, removed or unreadable file means the check runs again.
 *
 * Known limit: a file that did not exist at the last check and would now change how an import
 * resolves (a new `x.ts` beside the `x.d.ts` that was used) goes unnoticed until a listed file
 * changes; deleting the cache folder forces a full check.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { replaceFile } from './replace-file.ts';

const FORMAT = 'mep-typecheck-clean-1';

interface CleanRecord {
  format: string;
  /** [absolute path, sha256 of the content] for every file the check read. */
  files: [string, string][];
}

const hashFile = (path: string): string | null => {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return null;
  }
};

/** True when `recordPath` holds a clean record whose files are all unchanged. */
export function isStillClean(recordPath: string): boolean {
  let record: CleanRecord;
  try {
    record = JSON.parse(readFileSync(recordPath, 'utf8')) as CleanRecord;
  } catch {
    return false; // no record yet, or a damaged one: the check runs and writes a new one
  }
  if (record.format !== FORMAT || !Array.isArray(record.files) || record.files.length === 0) return false;
  return record.files.every((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && hashFile(entry[0]) === entry[1]);
}

/** Writes the clean record for `files` (by rename: a concurrent build never reads half of it). */
export function writeCleanRecord(recordPath: string, files: string[]): void {
  const entries: [string, string][] = [];
  for (const file of files) {
    const hash = hashFile(file);
    if (hash === null) return; // a file vanished during the check: record nothing
    entries.push([file, hash]);
  }
  const record: CleanRecord = { format: FORMAT, files: entries };
  mkdirSync(dirname(recordPath), { recursive: true });
  replaceFile(recordPath, JSON.stringify(record));
}
