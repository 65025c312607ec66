/** The archive-format-neutral view of one archive member. */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';

/** One member of a tar or zip archive. */
export interface ArchiveEntry {
  /** The path as stored (forward slashes). */
  path: string;
  type: 'file' | 'directory' | 'symlink';
  /** File contents (files only). */
  data?: Uint8Array;
  /** Link target as stored (symlinks only). */
  linkTarget?: string;
  /** Unix permission bits, when the archive records them. */
  mode?: number;
}

/** An archive that cannot be read: truncated, corrupt or using an unsupported feature. */
export function archiveError(archive: string, message: string, data: Record<string, unknown> = {}): MepError {
  return new MepError(LocalErrorCode.Registry, `Cannot read the archive ${archive}: ${message}. Nothing was installed.`, {
    data: { archive, reason: 'archive', ...data },
  });
}
