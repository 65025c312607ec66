/** Build diagnostics and the one error the guest build throws. */
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import type { MappedStack } from '../../host/src/transport/source-map/stack.ts';

/** One problem in user code, located in the user's own files (1-based line and column). */
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** Formats a diagnostic as `file:line:column: message`. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.message}`;
}

/**
 * The `MepError` (code `ERR_BUILD`) for failed user code, with `data.diagnostics` and, for a
 * throw while the module initialized, its stack mapped to the sources (`data.stack`, `frames`,
 * `origin`, as the host reports a guest's runtime errors).
 *
 * @param stage what failed, e.g. "type check"
 */
export function buildFailure(entry: string, stage: string, diagnostics: Diagnostic[], stack?: MappedStack): MepError {
  const shown = diagnostics.slice(0, 10).map(formatDiagnostic).join('\n');
  const more = diagnostics.length > 10 ? `\n… and ${diagnostics.length - 10} more` : '';
  return new MepError(LocalErrorCode.Build, `build of ${entry} failed (${stage}); fix these and rebuild:\n${shown}${more}`, {
    data: { diagnostics, ...(stack ? { stack: stack.stack, frames: stack.frames, ...(stack.origin ? { origin: stack.origin } : {}) } : {}) },
  });
}

/** The `MepError` (code `ERR_BUILD`) for a failed tool step that is not the user's code. */
export function toolFailure(what: string, detail: string, cause?: unknown): MepError {
  return new MepError(LocalErrorCode.Build, `${what}: ${detail}`, { cause });
}
