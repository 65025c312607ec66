/**
 * Staged, all-or-nothing writing of validated artifacts into an output directory (Node edge).
 * Every file is first written into a staging directory beside the output; only when all of them
 * are on disk are they moved into place, and a failure while moving restores what was there.
 *
 * Contents are streamed to disk in bounded chunks straight from the strings the extension
 * returned, so a large result is never held a second time as one big byte buffer.
 */
import { lstat, mkdir, mkdtemp, open, realpath, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { ValidatedArtifacts, ValidatedFile } from './validate.ts';

/** What {@link writeArtifacts} did. */
export interface WriteReport {
  /** Absolute output directory. */
  outDir: string;
  /** Relative paths written, in the order the extension returned them (a load order, for some formats). */
  written: string[];
  /** Total bytes written. */
  bytes: number;
}

/** Characters encoded per write: bounds the bytes held at once to a few MiB per file. */
const CHUNK_CHARS = 1 << 20;
/** Files staged, and then moved, at the same time. */
const PARALLEL_FILES = 8;

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Refuses a target whose existing parent directories leave `root` through a symlink. */
async function checkInside(root: string, dir: string, target: string): Promise<void> {
  let existing = dir;
  while (existing !== root && !(await exists(existing))) existing = dirname(existing);
  // Not even the root exists yet: it is made at publication, and nothing under it can be a link.
  if (existing === root && !(await exists(root))) return;
  const real = await realpath(existing);
  if (real !== root && !real.startsWith(root + sep)) {
    throw new MepError(LocalErrorCode.Artifact, `Refusing to write ${target}: ${existing} resolves to ${real}, outside the output directory ${root}. Remove the link or choose another --output.`, {
      data: { path: target, resolved: real, outDir: root },
    });
  }
}

/**
 * Writes one file's content in chunks. Text is cut between UTF-16 surrogate pairs, never inside
 * one; base64 (already without whitespace) is cut at multiples of 4 characters.
 */
async function writeContent(path: string, file: ValidatedFile): Promise<number> {
  const handle = await open(path, 'wx', 0o644);
  let bytes = 0;
  try {
    const { content } = file;
    for (let at = 0; at < content.length; ) {
      let end = Math.min(content.length, at + CHUNK_CHARS);
      if (!file.binary && end < content.length && (content.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      const chunk = Buffer.from(content.slice(at, end), file.binary ? 'base64' : 'utf8');
      await handle.write(chunk);
      bytes += chunk.length;
      at = end;
    }
  } finally {
    await handle.close();
  }
  return bytes;
}

/**
 * Runs `fn` over `items` with at most `limit` in flight. After a failure no item starts, and the
 * first failure is thrown once every call in flight has settled, so that nothing is still
 * writing or moving while the caller cleans up.
 */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}

/**
 * An output directory being staged: files are added one at a time (as a backend streams them)
 * into a staging directory beside it, and only {@link StagedOutput.publish} moves them into place,
 * all or none; {@link StagedOutput.abort} leaves the output directory as it was.
 */
export interface StagedOutput {
  /** Stage one validated file (its content is written now); adds may overlap. */
  add(file: ValidatedFile): Promise<void>;
  /** Waits for every add, then moves every staged file into place; a failure restores what was there. */
  publish(): Promise<WriteReport>;
  /** Drops everything staged. Idempotent; safe after a failed add or publish. */
  abort(): Promise<void>;
}

/**
 * Open `outDir` for staged writing of the artifacts of `extension`.
 *
 * @example
 * const output = await openStagedOutput('out/avro', extension);
 * try { for (const file of files) await output.add(file); await output.publish(); } finally { await output.abort(); }
 */
export async function openStagedOutput(outDir: string, extension: string): Promise<StagedOutput> {
  const root = resolve(outDir);
  // The output directory is made only when something is published: a failed run leaves none.
  // Until then the staging directory sits beside it, or in the nearest folder above it that exists.
  let existing = root;
  while (!(await exists(existing)) && dirname(existing) !== existing) existing = dirname(existing);
  const realExisting = await realpath(existing);
  const realRoot = existing === root ? realExisting : join(realExisting, relative(existing, root));
  const staging = await mkdtemp(join(existing === root ? dirname(realRoot) : realExisting, '.mep-staging-'));
  await mkdir(join(staging, 'new'));
  const files: ValidatedFile[] = [];
  const targets: string[] = [];
  const pending = new Set<Promise<void>>();
  // One check per directory, however many files it holds; at most PARALLEL_FILES writes at once.
  const checked = new Map<string, Promise<void>>();
  const slots = createSlots(PARALLEL_FILES);
  let failure: { error: unknown } | undefined;
  let bytes = 0;
  let closed = false;
  const failed = (error: unknown): MepError =>
    error instanceof MepError
      ? error
      : new MepError(LocalErrorCode.Artifact, `Writing the artifacts of ${extension} to ${root} failed (${(error as Error).message}); the output directory was left as it was.`, {
          cause: error,
          data: { extension, outDir: root },
        });
  const stage = async (file: ValidatedFile, n: number, target: string): Promise<void> => {
    const dir = dirname(target);
    let check = checked.get(dir);
    if (check === undefined) checked.set(dir, (check = checkInside(realRoot, dir, target)));
    await check;
    const written = await slots.run(() => writeContent(join(staging, 'new', String(n)), file));
    bytes += written;
  };
  const output: StagedOutput = {
    add(file) {
      if (closed) return Promise.reject(new MepError(LocalErrorCode.Artifact, `The output ${root} of ${extension} is already published or aborted; nothing more can be staged.`));
      const n = files.length;
      const target = join(realRoot, ...file.path.split('/'));
      files.push(file);
      targets.push(target);
      const done = stage(file, n, target).catch((error: unknown) => {
        failure ??= { error };
        throw failed(error);
      });
      pending.add(done);
      // Settled adds leave the set; their outcome is in `failure` for publish to report.
      void done.then(
        () => pending.delete(done),
        () => pending.delete(done),
      );
      return done;
    },
    async publish() {
      closed = true;
      await Promise.allSettled([...pending]);
      if (failure !== undefined) {
        await output.abort();
        throw failed(failure.error);
      }
      const moved: { target: string; backup?: string }[] = [];
      const made = new Map<string, Promise<unknown>>();
      const ensureDir = (dir: string): Promise<unknown> => {
        let done = made.get(dir);
        if (done === undefined) made.set(dir, (done = mkdir(dir, { recursive: true })));
        return done;
      };
      try {
        await mkdir(realRoot, { recursive: true });
        await mkdir(join(staging, 'old'));
        // Files move independently (each to its own target), so they move side by side too.
        await forEachLimited(targets, PARALLEL_FILES, async (target, n) => {
          const entry: { target: string; backup?: string } = { target };
          if (await exists(target)) {
            entry.backup = join(staging, 'old', String(n));
            await rename(target, entry.backup);
          }
          moved.push(entry);
          await ensureDir(dirname(target));
          await rename(join(staging, 'new', String(n)), target);
        });
      } catch (error) {
        // Put back what was there; best effort per file so one failure does not stop the rest.
        for (const entry of moved.reverse()) {
          await rm(entry.target, { force: true, recursive: true }).catch(() => undefined);
          if (entry.backup) await rename(entry.backup, entry.target).catch(() => undefined);
        }
        throw failed(error);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
      return { outDir: realRoot, written: files.map((f) => f.path), bytes };
    },
    async abort() {
      closed = true;
      await Promise.allSettled([...pending]);
      await rm(staging, { recursive: true, force: true });
    },
  };
  return output;
}

/** At most `limit` tasks at once, started in the order they asked. */
function createSlots(limit: number): { run<T>(task: () => Promise<T>): Promise<T> } {
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(task) {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      active++;
      try {
        return await task();
      } finally {
        active--;
        waiting.shift()?.();
      }
    },
  };
}

/**
 * Write the artifacts validated by `validateArtifacts` under `outDir`. Either every file is in
 * place afterwards or none of the output directory changed.
 *
 * @example
 * const report = await writeArtifacts('out/avro', validateArtifacts(extension, result.artifacts));
 */
export async function writeArtifacts(outDir: string, artifacts: ValidatedArtifacts): Promise<WriteReport> {
  const output = await openStagedOutput(outDir, artifacts.extension);
  try {
    await forEachLimited(artifacts.files, PARALLEL_FILES, (file) => output.add(file));
    return await output.publish();
  } finally {
    await output.abort();
  }
}
