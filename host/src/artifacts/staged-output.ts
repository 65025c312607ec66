/**
 * All-or-nothing publication of artifacts into an output directory, safe against interruption
 * at any moment (Node edge).
 *
 * The rule: the published output is the old output with the artifacts added, or replacing the
 * files of the same paths; everything else in it is kept. It is published as a whole: the
 * complete new tree is built beside the output (the artifacts written as they arrive, then the
 * other files of the old tree carried over; an artifact of exactly the bytes of the old tree's
 * file at its path links that file instead, see unchanged-file.ts), and two renames swap it in: the old tree aside,
 * the new tree into its place. A journal beside the output records the step (see
 * publish-journal.ts), so whenever the process dies (SIGINT, SIGTERM, SIGKILL, a crash), the
 * next writer to the output finishes or undoes the swap first: the output is the old tree or
 * the new one, never a mix and never part of the new one. Interrupted before the swap, the
 * output never changed; the staging tree is removed by `abort()` or by the next writer.
 *
 * An incremental stager: open it before the extension runs (an unusable output is refused then),
 * add files one at a time as they arrive, then publish or abort.
 */
import { closeSync, open as openCallback, writeSync } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ErrorCode, LocalErrorCode, MepError } from '../protocol/errors.ts';
import { noSpaceErrno, noSpaceWords } from '../files/no-space.ts';
import { carryOver } from './carry-over.ts';
import { forgetCreatedParents, locateOutput } from './output-location.ts';
import type { LocateOptions } from './output-location.ts';
import { createArtifactPathSet } from './path-set.ts';
import { acquirePublication } from './publish-journal.ts';
import { keepUnchanged, oldOutputFiles } from './unchanged-file.ts';
import type { ValidatedFile } from './validate.ts';

/** What a publication did. */
export interface WriteReport {
  /** Absolute output directory (symbolic links resolved). */
  outDir: string;
  /** Relative paths written, in the order they were added (the order the extension returned them: a load order, for some formats). */
  written: string[];
  /** Total bytes written. */
  bytes: number;
}

/** The steps of {@link StagedOutput.publish}, in order, as `onStep` reports them. */
export type PublishStep = 'staged' | 'carried' | 'swapping' | 'moved-aside' | 'published' | 'cleaned';

/** Options of {@link openStagedOutput}. */
export interface StagedOutputOptions extends LocateOptions {
  /** Who returned the artifacts, named in errors. Default "the extension". */
  extension?: string;
  /** Called as publication passes each step, synchronously (progress; tests interrupt at a step). */
  onStep?: (step: PublishStep) => void;
}

/** An output being staged; see {@link openStagedOutput}. */
export interface StagedOutput {
  /** The output directory that is replaced (absolute, symbolic links resolved). */
  readonly outDir: string;
  /**
   * Writes one validated file into the staged tree, returning its size in bytes. Calls may
   * overlap. Throws ERR_ARTIFACT for a path that collides with one added before.
   */
  add(file: ValidatedFile): Promise<number>;
  /** Completes the staged tree with the old output's other files and swaps it in. */
  publish(): Promise<WriteReport>;
  /**
   * Discards the staged tree (any time, also during `add` or `publish`), leaving the output as
   * it was and removing the lock and any directories created above the output. Resolves
   * `published` when the swap had already begun (the new tree is then the output), else
   * `aborted`; `add` and `publish` then reject with `reason`.
   */
  abort(reason?: MepError): Promise<'aborted' | 'published'>;
}

/** Characters encoded per write: bounds the bytes held at once to a few MiB per file. */
const CHUNK_CHARS = 1 << 20;

/**
 * One encoding buffer for every small file of the process, grown to the largest small file met
 * (at most 3 bytes a character of {@link CHUNK_CHARS}). Safe to share: a small file is encoded
 * and written without yielding, so no other write can touch it meanwhile.
 */
let scratch = Buffer.allocUnsafeSlow(1 << 16);

/** The last create asked for in each directory, while one is queued or running there. */
const creating = new Map<string, Promise<unknown>>();
const settled = (): void => undefined;

/**
 * Runs `create`, which makes a new file in `path`'s directory, after the creates asked for there
 * before it: one create in flight per directory. The kernel takes a directory's lock for each
 * create in it, so the thread pool's other threads, given creates in the same directory, wait
 * for it, and Linux's waiters spin on the CPU while the holder runs. On ext4 without a journal a
 * create also scans past every inode deleted in the last minute (or five) of its block group, so
 * after a rebuild's old tree was removed one create holds the lock for long: 2,000 schemas spent
 * about a tenth of the process's CPU spinning (docs/performance-log.md, 2026-12-05 07:00).
 */
function createSerially<T>(path: string, create: () => Promise<T>): Promise<T> {
  const directory = dirname(path);
  const before = creating.get(directory);
  const mine = before === undefined ? create() : before.then(create, create);
  const tail = mine.then(settled, settled);
  creating.set(directory, tail);
  void tail.then(() => {
    if (creating.get(directory) === tail) creating.delete(directory);
  });
  return mine;
}

/** Creates a new file on the thread pool, after the creates in its directory before it ({@link createSerially}). */
const createFile = (path: string): Promise<number> =>
  createSerially(path, () => new Promise((resolve, reject) => openCallback(path, 'wx', 0o644, (error, fd) => (error === null ? resolve(fd) : reject(error)))));

/** Encodes a small file's content into the shared buffer, returning its length in bytes. */
function encode(file: ValidatedFile): number {
  // Enough for any encoding of the content: UTF-8 takes at most 3 bytes per UTF-16 unit, and
  // base64 decodes to fewer bytes than it has characters.
  const worst = file.binary ? file.content.length : file.content.length * 3;
  if (worst > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.min(Math.max(worst, scratch.length * 2), 3 * CHUNK_CHARS));
  return scratch.write(file.content, 0, file.binary ? 'base64' : 'utf8');
}

/**
 * Writes a file of at most {@link CHUNK_CHARS} characters: created on the thread pool, then
 * encoded into the shared buffer, written and closed without yielding. A model's thousands of
 * small schemas otherwise cost three thread-pool round trips, a FileHandle and a fresh buffer
 * each: measured in docs/performance-log.md (avro5). When the old output's file `old` holds
 * exactly these bytes, that file is linked in instead ({@link keepUnchanged}).
 */
async function writeSmall(path: string, file: ValidatedFile, old?: string): Promise<number> {
  if (old !== undefined) {
    const length = encode(file);
    if (await keepUnchanged(old, path, scratch, length, createSerially)) return length;
  }
  const fd = await createFile(path);
  try {
    // Encoded again after the create: other files used the shared buffer meanwhile.
    const length = encode(file);
    for (let at = 0; at < length; ) at += writeSync(fd, scratch, at, length - at);
    return length;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes one file's content: a small one at once ({@link writeSmall}), a big one in chunks,
 * yielding between them. Text is cut between UTF-16 surrogate pairs, never inside one; base64
 * (already without whitespace) is cut at multiples of 4 characters. Only a small file keeps the
 * old output's file of the same bytes (`old`): a big one is always written anew.
 */
async function writeContent(path: string, file: ValidatedFile, old?: string): Promise<number> {
  if (file.content.length <= CHUNK_CHARS) return writeSmall(path, file, old);
  const handle = await createSerially(path, () => open(path, 'wx', 0o644));
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

function failedWrite(extension: string, outDir: string, error: unknown, bytes = 0): MepError {
  if (error instanceof MepError) return error;
  const code = noSpaceErrno(error);
  if (code !== undefined) {
    return new MepError(
      LocalErrorCode.Artifact,
      `Writing the artifacts of ${extension} to ${outDir} stopped: ${noSpaceWords(code)} (${code}) after ${bytes} bytes were staged beside it. Nothing was published: the output directory was left as it was and the staged files were removed. Free space there, or write elsewhere with --output.`,
      { cause: error, data: { extension, outDir, reason: 'no-space', errno: code, stagedBytes: bytes } },
    );
  }
  return new MepError(LocalErrorCode.Artifact, `Writing the artifacts of ${extension} to ${outDir} failed (${(error as Error).message}); the output directory was left as it was.`, {
    cause: error,
    data: { extension, outDir },
  });
}

/**
 * Opens a staged output for `outDir`: checks the output can be published to (ERR_USAGE before
 * anything runs when it is a file, not writable, a link loop, a mount point, or holds the
 * working directory), finishes or undoes an interrupted publication there, takes the lock
 * (ERR_USAGE while another mep publishes there) and creates the staging tree beside it.
 *
 * @example
 * const output = await openStagedOutput('out/avro', { extension });
 * try {
 *   for (const file of validateArtifacts(extension, result.artifacts).files) await output.add(file);
 *   const report = await output.publish();
 * } catch (error) { await output.abort(); throw error; }
 */
export async function openStagedOutput(outDir: string, options: StagedOutputOptions = {}): Promise<StagedOutput> {
  const extension = options.extension ?? 'the extension';
  const location = await locateOutput(outDir, options);
  let publication;
  try {
    publication = await acquirePublication(location);
  } catch (error) {
    await forgetCreatedParents(location);
    throw error;
  }
  const lock = publication;
  const staging = lock.staging;
  const fresh = join(staging, 'new');
  const aside = join(staging, 'old');
  try {
    await mkdir(staging, { mode: 0o700 });
    await mkdir(fresh);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    await lock.release();
    await forgetCreatedParents(location);
    throw failedWrite(extension, location.path, error);
  }

  const paths = createArtifactPathSet(extension);
  const files = new Set<string>();
  const directories = new Set<string>();
  const made = new Map<string, Promise<unknown>>();
  const oldFileOf = oldOutputFiles(location.path);
  const inflight = new Set<Promise<unknown>>();
  let bytes = 0;
  let failure: unknown;
  // open -> publishing -> swapping (no way back) -> done; aborted from open or publishing, or
  // when a swap failed and was undone; stuck when it could not be undone (the journal finishes it).
  let state: 'open' | 'publishing' | 'swapping' | 'done' | 'aborted' | 'stuck' = 'open';
  let reason: MepError | undefined;
  let publishing: Promise<WriteReport> | undefined;
  let rolledBack: Promise<void> | undefined;
  const step = (name: Parameters<NonNullable<StagedOutputOptions['onStep']>>[0]) => options.onStep?.(name);

  const closed = (): MepError =>
    reason ??
    (state === 'aborted'
      ? new MepError(ErrorCode.RequestCancelled, `Writing artifacts to ${location.path} was cancelled; the output was left as it was.`, { data: { outDir: location.path } })
      : new MepError(LocalErrorCode.Usage, `The staged output for ${location.path} is already ${state === 'done' ? 'published' : 'being published'}; open another to write again.`, { data: { outDir: location.path } }));

  // Idempotent: waits for writes in flight, then removes everything of this publication.
  const rollback = (): Promise<void> =>
    (rolledBack ??= (async () => {
      await Promise.allSettled([...inflight]);
      await rm(staging, { recursive: true, force: true });
      await lock.release();
      await forgetCreatedParents(location);
    })());

  const ensureDir = (dir: string): Promise<unknown> => {
    let done = made.get(dir);
    if (done === undefined) made.set(dir, (done = mkdir(dir, { recursive: true })));
    return done;
  };

  async function swap(): Promise<WriteReport> {
    await Promise.allSettled([...inflight]);
    if (failure !== undefined) throw failure;
    step('staged');
    let old;
    try {
      old = await lstat(location.path);
    } catch {
      old = undefined;
    }
    if (old !== undefined && !old.isDirectory()) {
      throw new MepError(LocalErrorCode.Usage, `Cannot write artifacts to ${location.path}: it became a ${old.isSymbolicLink() ? 'symbolic link' : 'file'} while the artifacts were staged; nothing was written.`, { data: { outDir: location.path } });
    }
    if (old !== undefined) await carryOver(location.path, fresh, { files, directories }, { outDir: location.requested, stopped: () => state === 'aborted' });
    step('carried');
    // Checked after the step, so that an abort from its listener still counts.
    if ((state as typeof state) === 'aborted') throw closed();
    // From here an abort waits for the swap instead of stopping it. (A process killed before the
    // first rename still leaves the old tree: the next writer undoes a swap that never began.)
    state = 'swapping';
    let movedAside = false;
    try {
      await lock.setPhase('swapping');
      step('swapping');
      if (old !== undefined) {
        await rename(location.path, aside);
        movedAside = true;
        step('moved-aside');
      }
      await rename(fresh, location.path);
    } catch (error) {
      if (movedAside) {
        try {
          await rename(aside, location.path);
        } catch (undo) {
          // The journal still says "swapping", and the staging tree stays: the next writer moves the new tree in.
          state = 'stuck';
          lock.abandon();
          throw new MepError(LocalErrorCode.Artifact, `Publishing to ${location.path} failed halfway (${(error as Error).message}) and the old tree could not be put back (${(undo as Error).message}); the next mep run that writes there finishes the publication.`, {
            cause: error,
            data: { outDir: location.path, staging },
          });
        }
      }
      state = 'aborted';
      throw error;
    }
    state = 'done';
    step('published');
    try {
      await lock.setPhase('cleanup');
      await rm(staging, { recursive: true, force: true });
      await lock.release();
    } catch {
      // The new tree is the output; what is left beside it, the journal says, and the next writer removes it.
      lock.abandon();
    }
    step('cleaned');
    return { outDir: location.path, written: [...files], bytes };
  }

  return {
    outDir: location.path,
    async add(file) {
      if (state !== 'open') throw closed();
      paths.add(file.path);
      files.add(file.path);
      for (let slash = file.path.indexOf('/'); slash >= 0; slash = file.path.indexOf('/', slash + 1)) directories.add(file.path.slice(0, slash));
      const target = join(fresh, ...file.path.split('/'));
      const write = (async () => {
        const [old] = await Promise.all([oldFileOf(file.path), ensureDir(dirname(target))]);
        return writeContent(target, file, old);
      })();
      inflight.add(write);
      try {
        const written = await write;
        bytes += written;
        return written;
      } catch (error) {
        failure ??= failedWrite(extension, location.path, error, bytes);
        throw failure;
      } finally {
        inflight.delete(write);
      }
    },
    publish() {
      if (state !== 'open') return Promise.reject(closed());
      state = 'publishing';
      publishing = swap().catch(async (error: unknown) => {
        // Stopped before the point of no return, or a swap undone: the output never changed.
        if (state === 'publishing' || state === 'aborted') {
          state = 'aborted';
          await rollback();
        }
        throw failedWrite(extension, location.path, error, bytes);
      });
      return publishing;
    },
    async abort(why) {
      if (state === 'done') return 'published';
      if (state === 'open' || (state === 'aborted' && publishing === undefined)) {
        reason ??= why;
        state = 'aborted';
        await rollback();
        return 'aborted';
      }
      // Publishing: the swap sees the flag before its point of no return, or is past it.
      if (state === 'publishing') {
        reason ??= why;
        state = 'aborted';
      }
      try {
        await publishing;
        return 'published';
      } catch {
        // The publication failed or stopped: its own rollback left the output as it was.
        return 'aborted';
      }
    },
  };
}
