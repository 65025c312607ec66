/**
 * Writing one artifact's content to a new file of the staged tree (Node edge): a small file on
 * the writer thread once it runs (writer-thread.ts), or created on libuv's pool and written at
 * once; a big one in chunks. Every file is created with `wx` (O_CREAT | O_EXCL): an existing
 * path, a symbolic link included, is refused and never followed.
 */
import { closeSync, open as openCallback, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ValidatedFile } from './validate.ts';
import { leaseWriterThread } from './writer-thread.ts';
import type { WriterLease } from './writer-thread.ts';

/** Characters encoded per write: bounds the bytes held at once to a few MiB per file. */
const CHUNK_CHARS = 1 << 20;

/**
 * The small files of one output written before it takes a lease on the writer thread: an output
 * of a few files never starts one (a thread's boot costs more than a few creates on the pool).
 */
const FILES_BEFORE_THREAD = 16;

/**
 * One encoding buffer for every small file of the process written here, grown to the largest
 * small file met (at most 3 bytes a character of {@link CHUNK_CHARS}). Safe to share: a small file
 * is encoded and written without yielding, so no other write can touch it meanwhile.
 */
let scratch = Buffer.allocUnsafeSlow(1 << 16);

/**
 * Bytes enough for any encoding of `file`'s content: UTF-8 takes at most 3 bytes per UTF-16
 * unit, and base64 decodes to fewer bytes than it has characters.
 */
const worstBytes = (file: ValidatedFile): number => (file.binary ? file.content.length : file.content.length * 3);

/** Opens a new file on the thread pool (creating one is the costly part: 0.2–0.4 ms of kernel time here). */
const createFile = (path: string): Promise<number> =>
  new Promise((resolve, reject) => openCallback(path, 'wx', 0o644, (error, fd) => (error === null ? resolve(fd) : reject(error))));

/**
 * Writes a file of at most {@link CHUNK_CHARS} characters: created on the thread pool, then
 * encoded into the shared buffer, written and closed without yielding. A model's thousands of
 * small schemas otherwise cost three thread-pool round trips, a FileHandle and a fresh buffer
 * each: measured in docs/performance-log.md (avro5).
 */
async function writeSmallOnPool(path: string, file: ValidatedFile): Promise<number> {
  const fd = await createFile(path);
  try {
    const worst = worstBytes(file);
    if (worst > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.min(Math.max(worst, scratch.length * 2), 3 * CHUNK_CHARS));
    const length = scratch.write(file.content, 0, file.binary ? 'base64' : 'utf8');
    for (let at = 0; at < length; ) at += writeSync(fd, scratch, at, length - at);
    return length;
  } finally {
    closeSync(fd);
  }
}

/** Writes a file of more than {@link CHUNK_CHARS} characters in chunks, yielding between them. */
async function writeLarge(path: string, file: ValidatedFile): Promise<number> {
  const handle = await open(path, 'wx', 0o644);
  let bytes = 0;
  try {
    const { content } = file;
    for (let at = 0; at < content.length; ) {
      // Text is cut between UTF-16 surrogate pairs, never inside one; base64 (already without
      // whitespace) at multiples of 4 characters.
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

/** The file writes of one staged output; see {@link createFileWriter}. */
export interface FileWriter {
  /** Creates `path` (which must not exist) with `file`'s content; resolves its size in bytes. */
  write(path: string, file: ValidatedFile): Promise<number>;
  /** Ends the output's use of the writer thread. Call once no write is in flight; idempotent. */
  close(): void;
}

/**
 * The file writes of one staged output. Its small files go to the writer thread from the
 * {@link FILES_BEFORE_THREAD}th on, as soon as that thread has booted, and to the pool before.
 *
 * @example
 * const files = createFileWriter();
 * try { await files.write('/out/.staging/new/a.avsc', file); } finally { files.close(); }
 */
export function createFileWriter(): FileWriter {
  let small = 0;
  let lease: WriterLease | undefined;
  let closed = false;
  return {
    async write(path, file) {
      if (file.content.length > CHUNK_CHARS) return writeLarge(path, file);
      if (++small >= FILES_BEFORE_THREAD && lease === undefined && !closed) lease = leaseWriterThread();
      if (lease === undefined || !lease.ready) return writeSmallOnPool(path, file);
      // A buffer of its own (moved to the thread), big enough for any encoding of the content.
      const bytes = lease.buffer(worstBytes(file));
      const length = bytes.write(file.content, 0, file.binary ? 'base64' : 'utf8');
      await lease.write(path, bytes.subarray(0, length));
      return length;
    },
    close() {
      closed = true;
      lease?.release();
    },
  };
}
