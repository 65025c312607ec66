/** Temporary directories for tests (test support): made fresh, removed afterwards whatever happens. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `fn` with a new empty directory under the system's temporary directory, named with
 * `prefix`, and removes it afterwards, also when `fn` fails.
 *
 * @example
 * await withTempDir('mep-artifacts-', async (dir) => { await writeArtifacts(join(dir, 'out'), files); });
 */
export async function withTempDir(prefix: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
