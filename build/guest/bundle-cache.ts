/**
 * Bundles cached by content: a bundle is kept on disk with the hash of every file it was made
 * from (and of the project's package.json, whose `browser` field steers resolution); while each
 * of them is unchanged, a rebuild takes the bundle from here and esbuild does not run. A touched
 * file whose bytes are the same is a hit; any changed, removed or unreadable file is a miss.
 *
 * Known limit (as for the type check's clean record): a new file that would change how an import
 * resolves (an `x.ts` beside the `x.js` that was used) goes unnoticed until a recorded file
 * changes; deleting the cache folder forces a fresh bundle.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Bundle } from './bundle.ts';
import { replaceFile } from './internal/replace-file.ts';

const FORMAT = 'mep-bundle-cache-1';

interface Entry {
  format: string;
  /** [absolute path, sha256 of its content or '' for a file that was absent]. */
  files: [string, string][];
  bundle: Bundle;
}

const hashFile = (path: string): string => {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return '';
  }
};

/** The cache file of one set of bundle options (`key`: everything but the files' content). */
export function bundleCachePath(cacheDir: string, key: string): string {
  return join(cacheDir, 'bundle', `${createHash('sha256').update(`${FORMAT}\0${key}`).digest('hex').slice(0, 24)}.json`);
}

/** The cached bundle at `path` when every file it recorded is unchanged, else undefined. */
export function cachedBundle(path: string): Bundle | undefined {
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(path, 'utf8')) as Entry;
  } catch {
    return undefined;
  }
  if (entry.format !== FORMAT || !Array.isArray(entry.files) || entry.files.length === 0 || typeof entry.bundle?.code !== 'string') return undefined;
  return entry.files.every((f) => Array.isArray(f) && typeof f[0] === 'string' && hashFile(f[0]) === f[1]) ? entry.bundle : undefined;
}

/**
 * Records `bundle` with the hashes of its inputs and `extra` files (by rename: a concurrent build
 * never reads half of it). Nothing is recorded when a file changed after `startedMs` (while
 * esbuild ran): its bytes now may not be the ones the bundle was made from.
 */
export function storeBundle(path: string, bundle: Bundle, extra: string[], startedMs: number): void {
  const names = [...new Set([...bundle.inputs, ...extra])];
  for (const name of names) {
    try {
      if (statSync(name).mtimeMs >= startedMs) return;
    } catch {
      // absent (the project's package.json may be): recorded as absent below
    }
  }
  const files: [string, string][] = names.map((f) => [f, hashFile(f)]);
  mkdirSync(join(path, '..'), { recursive: true });
  replaceFile(path, JSON.stringify({ format: FORMAT, files, bundle } satisfies Entry));
}
