/**
 * The bound on what one generate call makes the host write (its artifacts, streamed and
 * returned): bytes as written to disk (`maxOutputBytes`, `--max-output`) and files
 * (`maxOutputFiles`, `--max-output-files`). Each artifact is counted before it is handed on, so
 * an artifact past either bound is never staged, and a result past it is never published; the
 * error is ERR_LIMIT naming the limit in `data.limit`.
 */
import { artifactBytes } from '../protocol/artifact.ts';
import type { Artifact } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { DEFAULT_LIMITS, raiseAdvice } from '../protocol/limits.ts';

/** The output bound of one call; see the file comment. */
export interface OutputLimits {
  /** Bytes of artifacts one generate call may write. Default 4 GiB. */
  maxOutputBytes?: number;
  /** Artifact files one generate call may write. Default 1,000,000. */
  maxOutputFiles?: number;
}

/** Counts one call's artifacts against its {@link OutputLimits}. */
export interface OutputBudget {
  /** Counts `artifact`; throws ERR_LIMIT when it takes the call past either bound. */
  take(artifact: Artifact, how: 'streamed' | 'returned'): void;
}

/** A budget for one call of `extension` under `limits` (defaults for what is not given). */
export function createOutputBudget(extension: string, requestId: string | number, limits: OutputLimits = {}): OutputBudget {
  const maxBytes = limits.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes;
  const maxFiles = limits.maxOutputFiles ?? DEFAULT_LIMITS.maxOutputFiles;
  let bytes = 0;
  let files = 0;
  return {
    take(artifact, how) {
      files++;
      if (files > maxFiles) {
        throw new MepError(LocalErrorCode.Limit, `Extension '${extension}' ${how} ${files} artifacts or more, more files than the ${maxFiles} one call may write; nothing was written. ${raiseAdvice('maxOutputFiles', maxFiles)}`, {
          data: { extension, requestId, limit: 'maxOutputFiles', limitFiles: maxFiles, files },
        });
      }
      bytes += artifactBytes(artifact);
      if (bytes > maxBytes) {
        throw new MepError(LocalErrorCode.Limit, `Extension '${extension}' ${how} artifacts of more than ${maxBytes} bytes in all (${bytes} bytes so far), more than one call may write; nothing was written. ${raiseAdvice('maxOutputBytes', maxBytes)}`, {
          data: { extension, requestId, limit: 'maxOutputBytes', limitBytes: maxBytes, bytes },
        });
      }
    },
  };
}
