/**
 * Replaces a file of the build's caches or outputs in one step: the data goes to a temporary file
 * beside it, created new ('wx': never through a link or over another writer's file), which is then
 * renamed over the target. The temporary name carries the process id and random bytes, so two
 * builds of the same guest at once, in one process (type-check workers, concurrent builds) or in
 * two (test shards, two editors), never write or rename each other's temporary file; the last
 * rename wins with a whole file either way.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { LocalErrorCode, MepError } from '../../../host/src/protocol/errors.ts';

/** Writes `data` to `path` through a fresh temporary file and a rename (with `mode`, when given). */
export function replaceFile(path: string, data: string | Uint8Array, mode?: number): void {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    writeFileSync(tmp, data, { flag: 'wx' });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
    // A folder at the name (made during a watch): a typed refusal naming it, not a stack.
    throw new MepError(LocalErrorCode.Usage, `${path} is a folder: a build writes a file there. Move the folder, or name another file with -o.`, { data: { reason: 'folder-output', path } });
  }
}
