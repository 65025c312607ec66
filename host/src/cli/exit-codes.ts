/** The CLI's documented exit codes and its usage error. */

/** Exit codes of `mep` (documented in the README). */
export const ExitCode = {
  Ok: 0,
  /** The operation ran and reported error diagnostics, or checks failed. */
  Diagnostics: 1,
  /** The command line was wrong. */
  Usage: 2,
  /** The extension failed, broke the protocol, or could not be started. */
  ExtensionFailure: 3,
} as const;

/** A command-line mistake: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
