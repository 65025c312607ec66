/**
 * The CLI's side of publishing artifacts: Ctrl+C (SIGINT) or SIGTERM while the files are written
 * stops the write and leaves the output as it was, or, once the new tree is being swapped in,
 * lets the swap finish first; the command then fails as cancelled. Whatever kills `mep` instead
 * (a second signal, SIGKILL), the next run that writes to the output settles it.
 */
import { publishArtifacts } from '../artifacts/write.ts';
import type { StagedOutput, WriteReport } from '../artifacts/staged-output.ts';
import type { ValidatedArtifacts } from '../artifacts/validate.ts';
import { ErrorCode, MepError } from '../protocol/errors.ts';
import type { Io } from './io.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Publishes `artifacts` to `output` with SIGINT and SIGTERM turned into an abort: the first
 * signal stops the write (ERR -32800, the output as it was, or published when the swap had
 * begun); a second one ends `mep` at once, as it would without this.
 *
 * @example
 * const report = await publishInterruptibly(io, output, validateArtifacts(extension, result.artifacts));
 */
export async function publishInterruptibly(io: Io, output: StagedOutput, artifacts: ValidatedArtifacts): Promise<WriteReport> {
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const other of SIGNALS) process.off(other, onSignal);
    const reason = new MepError(ErrorCode.RequestCancelled, `Interrupted by ${signal} while writing the artifacts of ${artifacts.extension} to ${output.outDir}; the output was left as it was.`, {
      data: { outDir: output.outDir, signal },
    });
    output.abort(reason).catch((error: unknown) => {
      // The staging tree could not be removed: the next run that writes there removes it.
      io.err(`mep: could not clean up after the interrupted write to ${output.outDir}: ${(error as Error).message}`);
    });
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return await publishArtifacts(output, artifacts);
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}
