/**
 * Helpers of the tests that hold a build to regular files (source-files.test.ts,
 * package-files.test.ts): a build that may hang on a FIFO, bounded so a hang fails the test
 * rather than blocking the suite, and the check of a typed refusal naming a file.
 */
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MepError } from '../../../host/src/protocol/errors.ts';
import { bundleGuest, stopBundler } from '../bundle.ts';

/** Runs `body` in a fresh scratch folder (`mep-<prefix>-…` in the system's temporary folder), removed after. */
export async function inScratch(prefix: string, body: (root: string) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), `mep-${prefix}-`));
  try {
    await body(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The bundle's error, 'built', or 'hung' when esbuild still reads after `waitMs` (it waited on a
 * FIFO for good before the guard; its service is stopped then so the suite goes on). Not a timing
 * assertion: a passing build ends in well under a second.
 */
export async function bundleError(entry: string, cwd: string, keep = false, waitMs = 60_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<string>((done) => (timer = setTimeout(() => done('hung'), waitMs)));
  const built = bundleGuest({ entry, runtime: 'wasm', cwd }, keep).then(() => 'built', (e: unknown) => e);
  const result = await Promise.race([built, hung]);
  clearTimeout(timer);
  if (result === 'hung') await stopBundler();
  return result;
}

/** Asserts `error` is a typed refusal (ERR_BUILD or ERR_LIMIT, or `code` alone) whose message or data names `path` and matches `words`. */
export function refusedNaming(error: unknown, path: string, words: RegExp, code?: string): void {
  assert.instance(error, MepError, String(error));
  const codes = code ? [code] : ['ERR_BUILD', 'ERR_LIMIT'];
  assert.ok(codes.includes(String((error as MepError).code)), String((error as MepError).code));
  const text = (error as Error).message + JSON.stringify((error as MepError).data ?? {});
  assert.ok(text.includes(path) && words.test(text), text);
}
