/**
 * One thread of the process that creates and writes the small files of staged outputs (Node
 * edge): each file opened, written and closed synchronously, one after the other.
 *
 * Why a thread of its own: creating a file is the kernel's work (0.2–0.4 ms each on the
 * machines measured), and 2,000 of them created on libuv's pool cost 2–4× the kernel time of
 * the same creates done one after the other on one thread (docs/performance-log.md, avro9,
 * avro10), time taken from the extension's thread on a 2-core machine. On the main thread the
 * same synchronous creates would hold up the event loop for as long as the file system takes
 * (722 ms once at load 10, avro5); here they hold up nothing but this thread.
 *
 * The files are handed over in batches, one batch on the thread at a time: what arrives while
 * the thread works goes with the next batch, so the thread is woken once per batch, not per
 * file. Each file is opened with `wx` (O_CREAT | O_EXCL: an existing path, a symbolic link
 * included, is refused, never followed), as the writes on the pool do.
 *
 * The thread is shared by every staged output of the process (a lease each) and ends when the
 * last lease is released; it never keeps the process alive while it has nothing to write. If it
 * ends on its own (a crash, a terminate), every write it held is rejected with ERR_ARTIFACT and
 * the outputs that wrote through it fail as a whole (nothing is published); a later lease starts
 * a new thread.
 */
import { Worker } from 'node:worker_threads';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/**
 * The thread's code, evaluated (no file to locate in a bundle or a checkout, no loader, no module
 * graph: the thread boots in a few ms of its own CPU). A batch is `[path, bytes][]`; the answer
 * is one entry per file, null when written, else the error's fields (an Error does not survive
 * the message's copy with its `code`), and the files' buffers moved back to be used again.
 */
const THREAD_SOURCE = `'use strict';
const { parentPort } = require('node:worker_threads');
const { openSync, writeSync, closeSync } = require('node:fs');
const failed = (error) => ({ message: String(error && error.message), code: error && error.code, errno: error && error.errno, syscall: error && error.syscall, path: error && error.path });
function writeOne(path, bytes) {
  const fd = openSync(path, 'wx', 0o644);
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
  } finally {
    closeSync(fd);
  }
}
parentPort.on('message', (batch) => {
  if (!Array.isArray(batch)) throw new TypeError('the artifact writer thread was sent ' + typeof batch + ', not a batch of files');
  const answers = [];
  const buffers = [];
  for (const [path, bytes] of batch) {
    try {
      writeOne(path, bytes);
      answers.push(null);
    } catch (error) {
      answers.push(failed(error));
    }
    buffers.push(bytes.buffer);
  }
  parentPort.postMessage([answers, buffers], buffers);
});
parentPort.postMessage('ready');
`;

/** What the thread answers for a file that failed: the fields of its Error. */
interface FailedFile {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

interface Queued {
  path: string;
  bytes: Uint8Array;
  resolve(): void;
  reject(error: unknown): void;
}

/** The shared thread, from its start to its end. */
class WriterThread {
  readonly worker: Worker;
  /** Resolves once the thread is gone. */
  readonly exited: Promise<void>;
  ready = false;
  ended = false;
  leases = 0;
  /** Files it answered for (tests). */
  answeredFiles = 0;
  /** Files waiting for the batch on the thread to come back. */
  private queued: Queued[] = [];
  /** The batch on the thread, in order. */
  private sent: Queued[] = [];
  /**
   * Buffers the thread gave back, to fill again: a new buffer for each file would cost a page
   * fault for each of its pages (8,000 more for 32 MB of files, measured: avro10).
   */
  private spare: ArrayBuffer[] = [];
  private spareBytes = 0;

  constructor() {
    // No execArgv: the parent's loaders (tsx in a checkout) stay out of a thread that needs none.
    this.worker = new Worker(THREAD_SOURCE, { eval: true, execArgv: [], stdout: true, stderr: true });
    this.worker.unref();
    this.worker.on('message', (message: 'ready' | [(FailedFile | null)[], ArrayBuffer[]]) => (message === 'ready' ? (this.ready = true) : this.answered(message)));
    this.worker.on('error', (error) => this.end(error));
    this.exited = new Promise((resolve) =>
      this.worker.on('exit', (code) => {
        this.end(new Error(`it exited with code ${code}`));
        resolve();
      }),
    );
  }

  /** A buffer of at least `bytes` bytes to fill, a spare one when one is big enough. */
  buffer(bytes: number): Buffer {
    const at = this.spare.findIndex((spare) => spare.byteLength >= bytes);
    if (at < 0) return Buffer.allocUnsafeSlow(Math.max(MIN_BUFFER, 2 ** Math.ceil(Math.log2(Math.max(1, bytes)))));
    const [spare] = this.spare.splice(at, 1) as [ArrayBuffer];
    this.spareBytes -= spare.byteLength;
    return Buffer.from(spare);
  }

  write(path: string, bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ path, bytes, resolve, reject });
      if (this.ended) this.end(new Error('it had ended'));
      else if (this.sent.length === 0) this.gather();
    });
  }

  private gathering: NodeJS.Timeout | undefined;

  /** Sends the files queued when there are enough for a batch, else once {@link GATHER_MS} passed. */
  private gather(): void {
    if (this.queued.length >= BATCH_FILES) this.send();
    else if (this.queued.length > 0) this.gathering ??= setTimeout(() => this.send(), GATHER_MS);
    else this.worker.unref();
  }

  private send(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    if (this.ended || this.sent.length > 0) return;
    const batch = this.queued;
    this.queued = [];
    this.sent = batch;
    if (batch.length === 0) {
      this.worker.unref();
      return;
    }
    this.worker.ref();
    this.worker.postMessage(
      batch.map((file) => [file.path, file.bytes]),
      batch.map((file) => file.bytes.buffer as ArrayBuffer),
    );
  }

  private answered([answers, buffers]: [(FailedFile | null)[], ArrayBuffer[]]): void {
    for (const buffer of buffers) {
      if (this.spareBytes + buffer.byteLength > MAX_SPARE_BYTES) continue;
      this.spare.push(buffer);
      this.spareBytes += buffer.byteLength;
    }
    const batch = this.sent;
    this.answeredFiles += batch.length;
    batch.forEach((file, i) => {
      const failed = answers[i];
      if (failed === null) file.resolve();
      else file.reject(Object.assign(new Error(failed?.message ?? 'no answer from the artifact writer thread'), failed));
    });
    this.sent = [];
    this.gather();
  }

  /** The thread is gone: every write it held or would get is refused. */
  private end(cause: unknown): void {
    this.ended = true;
    clearTimeout(this.gathering);
    if (current === this) current = undefined;
    const held = [...this.sent, ...this.queued];
    this.sent = [];
    this.queued = [];
    for (const file of held) {
      file.reject(
        new MepError(LocalErrorCode.Artifact, `The thread writing the artifact files ended before it wrote ${file.path} (${cause instanceof Error ? cause.message : String(cause)}); nothing was published. Run the command again; if it happens again, report it.`, {
          cause,
          data: { path: file.path },
        }),
      );
    }
  }
}

let current: WriterThread | undefined;

/** The smallest buffer made for a file (sizes are powers of 2, so that a spare one fits most files). */
const MIN_BUFFER = 1 << 16;
/**
 * Files gathered before a batch goes to the thread, unless no more come within {@link GATHER_MS}:
 * each batch wakes the thread once (half of the streamed window of 64 artifacts in hand).
 */
const BATCH_FILES = 16;
const GATHER_MS = 2;
/** The most bytes of spare buffers kept. */
const MAX_SPARE_BYTES = 8 << 20;

/** A staged output's use of the writer thread; see {@link leaseWriterThread}. */
export interface WriterLease {
  /**
   * Whether a write now goes to the thread: it has booted and not ended. Until then (and after an
   * end) the caller writes the file itself.
   */
  readonly ready: boolean;
  /** A buffer of at least `bytes` bytes, the whole of its ArrayBuffer, to fill for {@link write}. */
  buffer(bytes: number): Buffer;
  /**
   * Creates `path` (a new file; an existing path is refused) with `bytes` on the thread: a view
   * from the start of a buffer of {@link buffer}, moved there (unusable here after). Rejects with
   * the file system's error (its `code` kept), or ERR_ARTIFACT when the thread ended first.
   */
  write(path: string, bytes: Uint8Array): Promise<void>;
  /** Ends this lease; the thread ends with the last one. Idempotent. Call once no write is in flight. */
  release(): void;
}

/**
 * Takes a lease on the writer thread, starting it when none runs (it boots meanwhile: see
 * {@link WriterLease.ready}). Never throws: a thread that cannot start is a lease never ready.
 *
 * @example
 * const lease = leaseWriterThread();
 * if (lease.ready) await lease.write(path, bytes);
 * lease.release();
 */
export function leaseWriterThread(): WriterLease {
  let thread: WriterThread | undefined;
  try {
    thread = current ??= new WriterThread();
    thread.leases++;
  } catch {
    thread = undefined;
  }
  let released = false;
  return {
    get ready() {
      return thread !== undefined && thread.ready && !thread.ended;
    },
    buffer(bytes) {
      return thread === undefined ? Buffer.allocUnsafeSlow(bytes) : thread.buffer(bytes);
    },
    write(path, bytes) {
      if (thread === undefined || released) return Promise.reject(new MepError(LocalErrorCode.Artifact, `No artifact writer thread to write ${path} with.`, { data: { path } }));
      return thread.write(path, bytes);
    },
    release() {
      if (released || thread === undefined) return;
      released = true;
      if (--thread.leases === 0) {
        if (current === thread) current = undefined;
        void thread.worker.terminate();
      }
    },
  };
}

/** The writer thread running now, for tests, or undefined when none runs. */
export function writerThreadForTests(): Pick<WriterThread, 'worker' | 'exited' | 'ready' | 'answeredFiles'> | undefined {
  return current?.ended === false ? current : undefined;
}
