/**
 * Staged, all-or-nothing writing of validated artifacts into an output directory (Node edge).
 * Every file is first written into a staging directory beside the output; only when all of them
 * are on disk are they moved into place, and a failure while moving restores what was there.
 */
import { lstat, mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** What {@link writeArtifacts} did. */
export interface WriteReport {
  /** Absolute output directory. */
  outDir: string;
  /** Relative paths written, sorted. */
  written: string[];
  /** Total bytes written. */
  bytes: number;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Refuses a target whose existing parent directories leave `root` through a symlink. */
async function checkInside(root: string, target: string): Promise<void> {
  let dir = dirname(target);
  while (!(await exists(dir))) dir = dirname(dir);
  const real = await realpath(dir);
  if (real !== root && !real.startsWith(root + sep)) {
    throw new MepError(LocalErrorCode.Artifact, `Refusing to write ${target}: ${dir} resolves to ${real}, outside the output directory ${root}. Remove the link or choose another --output.`, {
      data: { path: target, resolved: real, outDir: root },
    });
  }
}

/**
 * Write `files` (relative path → bytes, already validated by `validateArtifacts`) under `outDir`.
 * Either every file is in place afterwards or none of the output directory changed.
 *
 * @example
 * const files = validateArtifacts(ext, result.artifacts);
 * const report = await writeArtifacts('out/avro', files);
 */
export async function writeArtifacts(outDir: string, files: ReadonlyMap<string, Uint8Array>): Promise<WriteReport> {
  const root = resolve(outDir);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const staging = await mkdtemp(join(dirname(realRoot), '.mep-staging-'));
  const moved: { target: string; backup?: string }[] = [];
  let bytes = 0;
  try {
    let n = 0;
    for (const [path, content] of files) {
      const target = join(realRoot, ...path.split('/'));
      await checkInside(realRoot, target);
      const staged = join(staging, 'new', String(n++));
      await mkdir(dirname(staged), { recursive: true });
      await writeFile(staged, content);
      bytes += content.length;
    }
    n = 0;
    for (const [path] of files) {
      const target = join(realRoot, ...path.split('/'));
      const staged = join(staging, 'new', String(n));
      const entry: { target: string; backup?: string } = { target };
      if (await exists(target)) {
        entry.backup = join(staging, 'old', String(n));
        await mkdir(dirname(entry.backup), { recursive: true });
        await rename(target, entry.backup);
      }
      moved.push(entry);
      await mkdir(dirname(target), { recursive: true });
      await rename(staged, target);
      n++;
    }
  } catch (error) {
    // Put back what was there; best effort per file so one failure does not stop the rest.
    for (const entry of moved.reverse()) {
      await rm(entry.target, { force: true }).catch(() => undefined);
      if (entry.backup) await rename(entry.backup, entry.target).catch(() => undefined);
    }
    throw error instanceof MepError
      ? error
      : new MepError(LocalErrorCode.Artifact, `Writing artifacts to ${root} failed (${(error as Error).message}); the output directory was left as it was.`, { cause: error });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return { outDir: realRoot, written: [...files.keys()].sort(), bytes };
}
