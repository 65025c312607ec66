/**
 * How a staged output writes its small files (at most {@link SMALL_CHARS} characters): each is
 * created (`open(O_CREAT|O_EXCL)`, no link followed), encoded into one shared buffer, written
 * and closed.
 *
 * The create is the costly part (kernel time). On libuv's thread pool, 2,000 creates beside a
 * running guest cost 2–4× the kernel time of the same creates on one thread, and that CPU is
 * taken from the guest's thread (docs/performance-log.md, avro9 and avro13). So by default
 * they are made synchronously on the main thread, with a written-down bound on how long the
 * event loop is held:
 * - **in slices**: files queued in one turn of the loop are written until
 *   {@link SmallFileOptions.sliceMs} has passed, then the loop turns (`setImmediate`: messages,
 *   timers, signals and I/O are served) before the next slice;
 * - **slow means the pool**: once one file's create, write and close takes longer than
 *   {@link SmallFileOptions.slowMs} (a slow or remote file system), less the time the thread
 *   waited for a core meanwhile (Linux's schedstat; a preempted write is no slow one), that
 *   output's other files are created on the pool, as before;
 * - **a busy machine means the pool**: when the load average is past
 *   `createPoolLoadPerCore` a core ({@link oversubscribed}), the output's files are created on the
 *   pool, whose threads get more of a shared machine than the main thread alone;
 * - **remote means the pool**: an output on a network or FUSE file system ({@link REMOTE_FILE_SYSTEMS})
 *   uses the pool from its first file, so no synchronous call waits on a network.
 *
 * The loop is held at most `sliceMs` plus one file's write (every file after a slow one goes to the
 * pool). The semantics are the pool's: the same `open` flags and mode, the same errors.
 */
import { closeSync, open as openCallback, openSync, readFileSync, statfs, writeSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import type { ValidatedFile } from './validate.ts';

/** Characters of the largest file written at once (bigger files are written in chunks). */
export const SMALL_CHARS = 1 << 20;

/** Options of {@link smallFileWriter}; the defaults are the measured ones (avro13). */
export interface SmallFileOptions {
  /**
   * true: creates on the main thread, in slices (a remote file system, or a slow write, still
   * sends them to the pool); false: every create on the thread pool. Default: true unless the
   * machine is {@link oversubscribed}.
   */
  synchronous?: boolean;
  /** Milliseconds of synchronous writes before the event loop is let turn. Default {@link SLICE_MS}. */
  sliceMs?: number;
  /** One file's synchronous write slower than this sends the output's other files to the pool. Default {@link SLOW_MS}. */
  slowMs?: number;
}

/** Default slice: the event loop turns at least every 4 ms while files are created. */
export const SLICE_MS = HOST_FILE_LIMITS.createSliceMs;
/** Default slow write: a local create, even of 1 MiB, takes well under 1 ms alone and a few ms beside a busy guest; 25 ms is a slow disk. */
export const SLOW_MS = HOST_FILE_LIMITS.createSlowMs;

/**
 * True when the machine has more runnable threads than {@link HOST_FILE_LIMITS}'s
 * `createPoolLoadPerCore` a core (the last minute's load average): then the pool's four threads
 * get a share of the cores the main thread alone would not, and the creates go there (measured on
 * 2 cores, docs/performance-log.md: at load 2.5–13 the pool was as fast or faster, avro13; at load
 * 1.0–1.7 the main thread, avro9).
 */
export const oversubscribed = (load: number, cores: number): boolean => load > cores * HOST_FILE_LIMITS.createPoolLoadPerCore;

/**
 * `statfs` types of network and FUSE file systems (Linux magic numbers), whose creates may wait
 * on a network: NFS, SMB, CIFS, SMB2, FUSE, Ceph, AFS, 9P, Coda, NCP.
 */
export const REMOTE_FILE_SYSTEMS: ReadonlySet<number> = new Set([0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x00c36400, 0x5346414f, 0x01021997, 0x73757245, 0x564c]);

/**
 * One encoding buffer for every small file of the process, grown to the largest small file met
 * (at most 3 bytes a character of {@link SMALL_CHARS}). Safe to share: a small file is encoded
 * and written without yielding, so no other write can touch it meanwhile.
 */
let scratch = Buffer.allocUnsafeSlow(1 << 16);

/** Encodes `file` into the shared buffer, writes it to `fd` and closes it; returns the bytes. */
function fill(fd: number, file: ValidatedFile): number {
  try {
    // Enough for any encoding of the content: UTF-8 takes at most 3 bytes per UTF-16 unit, and
    // base64 decodes to fewer bytes than it has characters.
    const worst = file.binary ? file.content.length : file.content.length * 3;
    if (worst > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.min(Math.max(worst, scratch.length * 2), 3 * SMALL_CHARS));
    const length = scratch.write(file.content, 0, file.binary ? 'base64' : 'utf8');
    for (let at = 0; at < length; ) at += writeSync(fd, scratch, at, length - at);
    return length;
  } finally {
    closeSync(fd);
  }
}

/** Creates on the thread pool, then writes and closes without yielding (avro5's path). */
async function writeOnPool(path: string, file: ValidatedFile): Promise<number> {
  const fd = await new Promise<number>((resolve, reject) => openCallback(path, 'wx', 0o644, (error, fd) => (error === null ? resolve(fd) : reject(error))));
  return fill(fd, file);
}

interface Lane {
  pool: boolean;
  readonly sliceMs: number;
  readonly slowMs: number;
}

interface Job {
  lane: Lane;
  path: string;
  file: ValidatedFile;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

/** Files waiting for the next slice, of every output of the process (one bound for all). */
const queue: Job[] = [];
let head = 0;
let scheduled = false;

/**
 * Milliseconds this thread has waited for a core so far (Linux's schedstat), or undefined where
 * there is none: a write that took long because the thread was preempted (a busy machine) is no
 * slow file system, and is not counted as one.
 */
function waitedForCoreMs(): number | undefined {
  if (!hasSchedstat) return undefined;
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[1]) / 1e6;
  } catch {
    hasSchedstat = false;
    return undefined;
  }
}
/** False once schedstat could not be read (not Linux, or no /proc): not tried again. */
let hasSchedstat = true;

function drain(): void {
  scheduled = false;
  const start = performance.now();
  // Read once a drain (one small read of /proc), so that a long write can be told from a preempted one.
  const waited = waitedForCoreMs();
  while (head < queue.length) {
    const job = queue[head++];
    if (job.lane.pool) {
      writeOnPool(job.path, job.file).then(job.resolve, job.reject);
      continue;
    }
    const before = performance.now();
    try {
      job.resolve(fill(openSync(job.path, 'wx', 0o644), job.file));
    } catch (error) {
      job.reject(error);
    }
    const after = performance.now();
    if (after - before > job.lane.slowMs) {
      // The time the thread waited for a core in this slice is taken off the write's.
      const preempted = waited === undefined ? 0 : Math.max(0, (waitedForCoreMs() ?? waited) - waited);
      if (after - before - Math.min(after - before, preempted) > job.lane.slowMs) job.lane.pool = true;
    }
    if (after - start >= job.lane.sliceMs) break;
  }
  if (head < queue.length) {
    if (head >= 1024) queue.splice(0, head), (head = 0);
    schedule();
  } else queue.length = head = 0;
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(drain);
}

/** Writes small files of one output; see the module's comment. */
export interface SmallFileWriter {
  /** Creates `path` (never an existing one, never through a link) with `file`'s content; resolves its bytes. */
  write(path: string, file: ValidatedFile): Promise<number>;
  /** True once this output's creates go to the thread pool (remote, slow, or not synchronous). */
  readonly onPool: boolean;
}

/**
 * A writer of small files into `dir` (an existing directory of the output's staging tree): its
 * file system is looked at first, so a remote one never sees a synchronous create.
 */
export async function smallFileWriter(dir: string, options: SmallFileOptions = {}): Promise<SmallFileWriter> {
  let pool = options.synchronous === false || (options.synchronous === undefined && oversubscribed(loadavg()[0], availableParallelism()));
  if (!pool) pool = await new Promise<boolean>((resolve) => statfs(dir, (error, stats) => resolve(error !== null || REMOTE_FILE_SYSTEMS.has(stats.type))));
  const lane: Lane = { pool, sliceMs: options.sliceMs ?? SLICE_MS, slowMs: options.slowMs ?? SLOW_MS };
  return {
    get onPool() {
      return lane.pool;
    },
    write(path, file) {
      if (lane.pool) return writeOnPool(path, file);
      return new Promise<number>((resolve, reject) => {
        queue.push({ lane, path, file, resolve, reject });
        schedule();
      });
    },
  };
}
