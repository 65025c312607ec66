/**
 * The one way the host opens a file on anyone's behalf (its lock and configuration, a package's
 * manifest, the user's inputs, a project's sources, the publish journal): what is there is
 * checked to be a regular file before it is opened, so a FIFO (which blocks `open` until a
 * writer comes, past SIGTERM), a device (`/dev/zero` never ends; opening a tape rewinds it) or a
 * socket is refused unopened; it is opened non-blocking (and, for files the host itself manages,
 * without following a link), and the opened descriptor is checked again, so a swap between the
 * check and the open is caught too. Its size is bounded before and while it is read. Node edge.
 */
import type { Stats } from 'node:fs';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { LocalErrorCodeValue } from '../protocol/errors.ts';
import { raiseAdvice } from '../protocol/limits.ts';
import type { LimitName } from '../protocol/limits.ts';

/** How to open a file with {@link readRegularFile} and its relatives. */
export interface RegularFileOptions {
  /** What the file is, for messages: `the lock`, `the input`. */
  what: string;
  /** The most bytes it may have; more is ERR_LIMIT. */
  maxBytes: number;
  /** The code of a refusal other than its size (not there, not a regular file, unreadable). Default ERR_USAGE. */
  code?: LocalErrorCodeValue;
  /** Refuse a symbolic link instead of following it (files the host manages: it never makes links). Default false. */
  noFollow?: boolean;
  /** The user limit that raises `maxBytes`, named in the size refusal. */
  limit?: LimitName;
  /** How to raise `maxBytes` when no user limit does (`pass --max-sources 20000`). */
  raise?: string;
  /**
   * Bytes left free before the file's bytes in the returned Buffer's own memory (never pooled,
   * shared with nothing), for a caller that rewrites the first bytes in place, a few longer (the
   * wasm memory cap: transport/wasm/memory-cap.ts). Default 0.
   */
  headroom?: number;
  /**
   * Called with each part of the file as it is read, in order (a hash taken while the rest reads:
   * transport/wasm/node/file-module.ts); with {@link partBytes}, the read is that many bytes at a
   * time. Each part is a view of the buffer read into, valid until the reader returns. The async
   * readers only.
   */
  onPart?: (part: Buffer) => void;
  /** The most bytes one read asks for (default: the rest of the file at once). */
  partBytes?: number;
}

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** The kind of a file that is not a regular one, in words. */
export function fileKind(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isDirectory()) return 'a directory';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return info.isFile() ? 'a regular file' : 'not a regular file';
}

function refusal(path: string, options: RegularFileOptions, reason: string, detail: string, cause?: unknown): MepError {
  return new MepError(options.code ?? LocalErrorCode.Usage, `Cannot read ${options.what} ${path}: ${detail}.`, {
    data: { file: path, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

function notRegular(path: string, options: RegularFileOptions, info: Stats): MepError {
  return refusal(path, options, 'not-a-file', `it is ${fileKind(info)}, not a regular file; mep reads only regular files here`);
}

function tooLarge(path: string, options: RegularFileOptions, size: number): MepError {
  const advice = options.limit ? ` ${raiseAdvice(options.limit, options.maxBytes, size)}` : options.raise ? ` ${options.raise}.` : '';
  return new MepError(LocalErrorCode.Limit, `Cannot read ${options.what} ${path}: it has ${size} bytes or more, over the limit of ${options.maxBytes}.${advice}`, {
    data: { file: path, reason: 'too-large', size, maxBytes: options.maxBytes, ...(options.limit ? { limit: options.limit } : {}) },
  });
}

function failed(path: string, options: RegularFileOptions, error: unknown): MepError {
  if (error instanceof MepError) return error;
  const code = errno(error);
  if (code === 'ENOENT' || code === 'ENOTDIR') return refusal(path, options, 'missing', 'it does not exist', error);
  if (code === 'ELOOP' && options.noFollow) return refusal(path, options, 'not-a-file', 'it is a symbolic link; mep never reads one here', error);
  return refusal(path, options, 'unreadable', code ?? (error as Error).message, error);
}

/** True when `error` is the refusal of a file that is not there (a missing lock is an empty one). */
export function isMissingFile(error: unknown): boolean {
  return error instanceof MepError && (error.data as { reason?: unknown } | undefined)?.reason === 'missing';
}

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows, where neither a FIFO nor a link can block an open.
const flagsOf = (options: RegularFileOptions): number => constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0);

/** An open regular file: its handle (the caller closes it) and its size when it was opened. */
export interface OpenedFile {
  handle: FileHandle;
  info: Stats;
}

/**
 * Opens `path` as a regular file of at most `maxBytes` (see the file's comment), or throws a
 * typed refusal: `data.reason` `missing`, `not-a-file`, `unreadable` (the options' code), or
 * `too-large` (ERR_LIMIT). The caller closes the handle.
 */
export async function openRegularFile(path: string, options: RegularFileOptions): Promise<OpenedFile> {
  let handle: FileHandle | undefined;
  try {
    const before = await (options.noFollow ? lstat(path) : stat(path));
    if (!before.isFile()) throw notRegular(path, options, before);
    if (before.size > options.maxBytes) throw tooLarge(path, options, before.size);
    handle = await open(path, flagsOf(options));
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(path, options, info);
    if (info.size > options.maxBytes) throw tooLarge(path, options, info.size);
    return { handle, info };
  } catch (error) {
    await handle?.close();
    throw failed(path, options, error);
  }
}

/**
 * The next buffer to read into: what is left of the size seen plus one byte (so a file that did
 * not grow is read in one buffer and kept as it is), at least 64 KiB, never past the limit.
 */
const chunkSize = (size: number, total: number, maxBytes: number): number => Math.min(Math.max(size - total + 1, 1 << 16), maxBytes + 1 - total);
const nextChunk = (size: number, total: number, maxBytes: number): Buffer => Buffer.allocUnsafe(chunkSize(size, total, maxBytes));

/** The chunks read, as one buffer: the first itself when it is the only one. */
const joined = (chunks: Buffer[], total: number): Buffer => (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));

/** {@link joined}, `headroom` bytes into memory of its own (unpooled): room the caller may write in. */
function joinedWithRoom(chunks: Buffer[], total: number, headroom: number): Buffer {
  const only = chunks.length === 1 ? (chunks[0] as Buffer) : undefined;
  if (only !== undefined && only.byteOffset === headroom && only.buffer.byteLength >= headroom + total) return only;
  const room = Buffer.allocUnsafeSlow(headroom + total);
  let at = headroom;
  for (const chunk of chunks) at += chunk.copy(room, at);
  return room.subarray(headroom, headroom + total);
}

/** The buffer to read into after `chunks`: the first past `options.headroom`, into memory of its own. */
function chunkAfter(chunks: readonly Buffer[], size: number, total: number, options: RegularFileOptions): Buffer {
  const room = chunks.length === 0 ? (options.headroom ?? 0) : 0;
  return room === 0 ? nextChunk(size, total, options.maxBytes) : Buffer.allocUnsafeSlow(room + chunkSize(size, 0, options.maxBytes)).subarray(room);
}

/** The chunks read as one buffer, with `options.headroom` before it where asked. */
const joinedAs = (chunks: Buffer[], total: number, options: RegularFileOptions): Buffer => ((options.headroom ?? 0) > 0 ? joinedWithRoom(chunks, total, options.headroom as number) : joined(chunks, total));

/** Reads all of an {@link openRegularFile} up to `maxBytes` (a file that grew past it is refused); the caller closes it. */
export async function readOpenedFile(path: string, { handle, info }: OpenedFile, options: RegularFileOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const most = options.partBytes ?? Number.POSITIVE_INFINITY;
  // The part read last, handed to onPart while the next one reads.
  let last: Buffer | undefined;
  for (let ended = false; !ended; ) {
    // Each chunk filled before the next is made: a file read in parts stays in one buffer.
    const chunk = chunkAfter(chunks, info.size, total, options);
    let filled = 0;
    while (filled < chunk.length) {
      const reading = handle.read(chunk, filled, Math.min(chunk.length - filled, most), null);
      if (last !== undefined) {
        // Its failure is the await's below; a throwing onPart leaves it handled.
        reading.catch(() => undefined);
        options.onPart?.(last);
        last = undefined;
      }
      const { bytesRead } = await reading;
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > options.maxBytes) throw tooLarge(path, options, total);
      last = chunk.subarray(filled, filled + bytesRead);
      filled += bytesRead;
    }
    ended = filled < chunk.length;
    if (filled > 0) chunks.push(chunk.subarray(0, filled));
  }
  if (last !== undefined) options.onPart?.(last);
  return joinedAs(chunks, total, options);
}

/**
 * The bytes of the regular file `path`, read through {@link openRegularFile}.
 *
 * @example
 * const bytes = await readRegularFile(lockPath, { what: 'the lock', maxBytes: HOST_FILE_LIMITS.lockBytes, noFollow: true });
 */
export async function readRegularFile(path: string, options: RegularFileOptions): Promise<Buffer> {
  return (await readRegularFileWithStat(path, options)).bytes;
}

/**
 * {@link readRegularFile}, with the opened descriptor's `fstat` taken before its first byte was
 * read: the identity of the file the bytes came from (a write to it since moves its ctime).
 */
export async function readRegularFileWithStat(path: string, options: RegularFileOptions): Promise<{ bytes: Buffer; info: Stats }> {
  const opened = await openRegularFile(path, options);
  try {
    return { bytes: await readOpenedFile(path, opened, options), info: opened.info };
  } catch (error) {
    throw failed(path, options, error);
  } finally {
    await opened.handle.close();
  }
}

/** The UTF-8 text of the regular file `path`; see {@link readRegularFile}. */
export async function readTextFile(path: string, options: RegularFileOptions): Promise<string> {
  return (await readRegularFile(path, options)).toString('utf8');
}

/** {@link readRegularFile} for callers that cannot wait (rendering a diagnostic's source line). */
export function readRegularFileSync(path: string, options: RegularFileOptions): Buffer {
  let fd: number | undefined;
  try {
    const before = options.noFollow ? lstatSync(path) : statSync(path);
    if (!before.isFile()) throw notRegular(path, options, before);
    if (before.size > options.maxBytes) throw tooLarge(path, options, before.size);
    fd = openSync(path, flagsOf(options));
    const info = fstatSync(fd);
    if (!info.isFile()) throw notRegular(path, options, info);
    if (info.size > options.maxBytes) throw tooLarge(path, options, info.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = chunkAfter(chunks, info.size, total, options);
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > options.maxBytes) throw tooLarge(path, options, total);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return joinedAs(chunks, total, options);
  } catch (error) {
    throw failed(path, options, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
