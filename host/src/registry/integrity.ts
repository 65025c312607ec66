/**
 * The artifact check that runs before every session: the file about to run must hash to the
 * sha256 the lock pinned at install.
 */
import { createHash } from 'node:crypto';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { hashRegularFile } from '../files/copy-file.ts';

/**
 * The lowercase hex sha256 of a file, streamed: a regular file (never a FIFO or a device) of at
 * most `HOST_FILE_LIMITS.artifactBytes`, not through a link when `noFollow`.
 */
export async function sha256File(path: string, options: { noFollow?: boolean } = {}): Promise<string> {
  return (await hashRegularFile(path, { what: 'the file', code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.artifactBytes, noFollow: options.noFollow ?? false })).sha256;
}

/** The lowercase hex sha256 of bytes in memory. */
export function sha256Bytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** What {@link verifyArtifact} compares. */
export interface ArtifactPin {
  /** The extension id, for the message. */
  extension: string;
  /** Absolute path of the artifact about to run. */
  file: string;
  /** The sha256 the lock pins. */
  expected: string;
  /** The lock that pins it, for the message. */
  lock: string;
  /** What the file is, for the message. Default `artifact`. */
  what?: 'artifact' | 'manifest' | 'package file';
}

/**
 * Re-hashes the artifact and refuses (MepError ERR_REGISTRY, `data.reason: 'hash-mismatch'`) when
 * it differs from the pinned hash, naming the file and both hashes.
 */
export async function verifyArtifact(pin: ArtifactPin): Promise<void> {
  let actual: string;
  try {
    actual = await sha256File(pin.file, { noFollow: true });
  } catch (error) {
    throw new MepError(LocalErrorCode.Registry, `Cannot read the artifact ${pin.file} of extension '${pin.extension}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Reinstall it with 'mep install'.`, {
      cause: error,
      data: { extension: pin.extension, file: pin.file, reason: 'missing-artifact' },
    });
  }
  if (actual !== pin.expected) throw mismatch(pin, actual);
}

/** The refusal of a file whose hash is `actual`, not the pinned one (MepError ERR_REGISTRY, `data.reason: 'hash-mismatch'`). */
export function mismatch(pin: ArtifactPin, actual: string): MepError {
  return new MepError(
    LocalErrorCode.Registry,
    `Refusing to run extension '${pin.extension}': ${pin.file} has sha256 ${actual}, but ${pin.lock} pins ${pin.expected}. The ${pin.what ?? 'artifact'} changed after install; restore the file, or reinstall it with 'mep install <source>'${pin.what === 'package file' ? " (then 'mep trust' if the project's lock asks for it)" : ''}.`,
    { data: { extension: pin.extension, file: pin.file, expected: pin.expected, actual, lock: pin.lock, reason: 'hash-mismatch' } },
  );
}
