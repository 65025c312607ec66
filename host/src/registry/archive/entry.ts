/** The archive-format-neutral view of one archive member, and the errors of reading one. */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';

/** One member of a tar or zip archive, without its data (readers stream that separately). */
export interface ArchiveEntry {
  /** The path as stored (forward slashes). */
  path: string;
  type: 'file' | 'directory' | 'symlink';
  /** Bytes of data (files only; 0 otherwise). */
  size: number;
  /** Link target as stored (symlinks only). */
  linkTarget?: string;
  /** Unix permission bits, when the archive records them. */
  mode?: number;
}

/** Where a file member's data goes while a reader streams it. */
export interface DataSink {
  write(chunk: Uint8Array): Promise<void>;
  /** Called once after the last chunk, or after a failure (then its own errors are ignored). */
  close(): Promise<void>;
}

/** An archive that cannot be read: truncated, corrupt or using an unsupported feature. */
export function archiveError(archive: string, message: string, data: Record<string, unknown> = {}): MepError {
  return new MepError(LocalErrorCode.Registry, `Cannot read the archive ${archive}: ${message}. Nothing was installed.`, {
    data: { archive, reason: 'archive', ...data },
  });
}

/** Streams `chunks` into `sink` and closes it, also when a chunk or a write fails. */
export async function drainInto(chunks: AsyncIterable<Uint8Array>, sink: DataSink | undefined): Promise<void> {
  try {
    for await (const chunk of chunks) await sink?.write(chunk);
  } catch (error) {
    // The first failure is the one to report; closing after it is best effort.
    await sink?.close().catch(() => undefined);
    throw error;
  }
  await sink?.close();
}
