/**
 * Test support: a neighbour who guessed the temporary name the atomic writer
 * (registry/atomic-write.ts) will pick next, and planted something there first.
 */
import crypto from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { withPatchedBuiltin } from '../../../../fixtures/testing/patched-builtin.ts';

/** The random part the writer's next temporary name gets while `withGuessedTemp` runs. */
const GUESSED = Buffer.from('0badf00d', 'hex');

/**
 * Runs `fn` while the atomic writer's next temporary name for `path` is known: `plant` is called
 * with that name first (to put a link or a file there), then the writer's first draw of
 * randomness gives that name, later ones are random again.
 *
 * @example
 * await withGuessedTemp(record, (temp) => symlinkSync(victim, temp), () => writeBuildRecord(…));
 */
export async function withGuessedTemp<T>(path: string, plant: (temp: string) => void, fn: () => Promise<T>): Promise<T> {
  plant(join(dirname(path), `.${basename(path)}.${process.pid}.${GUESSED.toString('hex')}.tmp`));
  let drawn = false;
  return withPatchedBuiltin(
    crypto,
    'randomBytes',
    (real) =>
      ((size: number) => {
        if (drawn || size !== GUESSED.length) return real(size);
        drawn = true;
        return Buffer.from(GUESSED);
      }) as typeof crypto.randomBytes,
    fn,
  );
}
