/**
 * Copying a regular file while hashing the very bytes copied: the copy and its sha256 describe
 * one and the same content, whatever happens to the source meanwhile (renamed over, rewritten
 * in place). Install checks a package's `SHA256SUMS` and pins the artifact on its staged copy,
 * and a pinned process entry runs from such a copy (pinned-copy.ts). Node edge.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { openRegularFile } from './regular-file.ts';
import type { RegularFileOptions } from './regular-file.ts';

/** What {@link copyRegularFile} copied. */
export interface CopiedFile {
  /** Lowercase hex sha256 of the bytes written. */
  sha256: string;
  /** Bytes written. */
  size: number;
}

/** Streams `from` into `to` (both open) while hashing, up to `maxBytes`; returns the hash and size. */
async function streamHashed(from: FileHandle, to: FileHandle | undefined, path: string, options: RegularFileOptions): Promise<CopiedFile> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1 << 20);
  let size = 0;
  for (;;) {
    const { bytesRead } = await from.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    size += bytesRead;
    if (size > options.maxBytes) {
      throw new MepError(LocalErrorCode.Limit, `Cannot read ${options.what} ${path}: it grew past the limit of ${options.maxBytes} bytes while it was read.`, {
        data: { file: path, reason: 'too-large', size, maxBytes: options.maxBytes },
      });
    }
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    if (to) await to.write(chunk);
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * The sha256 of the regular file `path` (opened as `readRegularFile` opens it: no FIFO, device
 * or socket; bounded), streamed.
 */
export async function hashRegularFile(path: string, options: RegularFileOptions): Promise<CopiedFile> {
  const { handle } = await openRegularFile(path, options);
  try {
    return await streamHashed(handle, undefined, path, options);
  } finally {
    await handle.close();
  }
}

/**
 * Copies the regular file `source` to the new file `target` (created exclusively with `mode`),
 * returning the sha256 of exactly what was written. A failed copy removes nothing it did not
 * create; the caller removes `target`.
 *
 * @example
 * const { sha256 } = await copyRegularFile(file.source, target, { what: 'the package file', maxBytes }, 0o644);
 */
export async function copyRegularFile(source: string, target: string, options: RegularFileOptions, mode = 0o644): Promise<CopiedFile> {
  const { handle } = await openRegularFile(source, options);
  try {
    const out = await open(target, 'wx', mode);
    try {
      return await streamHashed(handle, out, source, options);
    } finally {
      await out.close();
    }
  } finally {
    await handle.close();
  }
}
