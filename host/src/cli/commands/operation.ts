/**
 * What the operation commands (generate, compile, validate, transform) share: their common
 * flags, reading the IR input, choosing the provider, running one session with secrets and an
 * optional transcript, and reporting failures the same way in human and `--json` form.
 */
import { isAscii } from 'node:buffer';
import { resolve } from 'node:path';
import type { Diagnostic } from '../../protocol/index.ts';
import { LocalErrorCode, MepError, isMepError } from '../../protocol/errors.ts';
import { JsonText } from '../../protocol/json-text.ts';
import { MAX_INPUT_DEPTH, deepInputError, findExcessNesting } from '../../protocol/json-depth.ts';
import { writeJsonAtomic } from '../../registry/atomic-write.ts';
import { secretApprovals } from '../../registry/approvals.ts';
import { warmTransport } from '../../registry/launch.ts';
import type { ProviderNeed } from '../../registry/provider-need.ts';
import type { Redactor } from '../../registry/redact.ts';
import { createSecretResolver } from '../../registry/secrets.ts';
import type { Session } from '../../session/session.ts';
import { detectIrVersion } from '../../session/ir-version.ts';
import { UsageError } from '../exit-codes.ts';
import { readInput } from '../input-ahead.ts';
import type { Io } from '../io.ts';
import { renderDiagnostics } from '../render-diagnostics.ts';
import { withSession } from '../with-session.ts';
import { cliRegistryPaths, launchSpecOfArgument, resolveProvider } from './extension-argument.ts';
import type { ResolvedExtension } from './extension-argument.ts';
import { parseGrantFlags } from './grant-flags.ts';
import type { GrantFlagValues } from './grant-flags.ts';
import { parseLimitFlags } from './limit-flags.ts';
import type { LimitFlagValues } from './limit-flags.ts';
import { openTranscript } from './transcript.ts';

export { OPERATION_FLAGS, OPERATION_HELP } from './operation-flags.ts';

/** The parsed common flags. */
export interface OperationFlags extends LimitFlagValues, GrantFlagValues {
  extension?: string;
  json?: boolean;
  verbose?: boolean;
  transcript?: string;
  'transcript-unredacted'?: boolean;
  'cancel-grace'?: string;
}

/** `--cancel-grace MS`: a whole number of milliseconds up to an hour, or undefined when not given. */
function cancelGraceOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms > 3_600_000) throw new UsageError(`--cancel-grace expects a whole number of milliseconds from 0 to 3600000, got '${text}'.`);
  return ms;
}

/**
 * Reads a JSON input file, checked but not parsed (a {@link JsonText}), or throws a usage error
 * naming it. `meanwhile` (e.g. {@link warmOperation}) runs while the file is read and is awaited
 * before the text is checked, which holds this thread. An ASCII file (a Morphir IR, nearly always)
 * is decoded as Latin-1, the same text for less work, and its bytes are kept for the wire.
 */
export async function readJsonInput(io: Io, file: string, what = 'a Morphir IR file (morphir-ir.json)', meanwhile?: Promise<void>): Promise<{ path: string; value: JsonText }> {
  const path = resolve(io.cwd, file);
  let bytes: Buffer;
  try {
    // A regular file only, at most as large as any message; read while the command loaded, if the early start could (input-ahead.ts).
    bytes = await readInput(path);
  } catch (error) {
    if (isMepError(error) && error.code === LocalErrorCode.Limit) throw error;
    const reason = isMepError(error) ? (error.data as { reason?: string } | undefined)?.reason : undefined;
    throw new MepError(LocalErrorCode.Usage, `Cannot read the input ${path}: ${reason ?? (error as NodeJS.ErrnoException).code ?? (error as Error).message}. Pass ${what} with --input.`, { data: { file: path, ...(reason ? { reason } : {}) }, cause: error });
  } finally {
    await meanwhile;
  }
  const ascii = isAscii(bytes);
  const text = bytes.toString(ascii ? 'latin1' : 'utf8');
  try {
    // The depth is checked in the scan's own pass; on any refusal the whole text's depth is judged
    // first, as when it was checked on its own before the scan (a deep text is refused as deep).
    return { path, value: JsonText.parse(text, { maxDepth: MAX_INPUT_DEPTH, ...(ascii ? { utf8: bytes } : {}) }) };
  } catch (error) {
    refuseDeepInput(path, text);
    throw new MepError(LocalErrorCode.Usage, `The input ${path} is not valid JSON (${(error as Error).message}); pass ${what}.`);
  }
}

/**
 * Refuses an input nested deeper than a request may carry ({@link MAX_INPUT_DEPTH} levels and the
 * request's own three, as many as the wasm guest engine reads): MepError(ERR_LIMIT,
 * `limit: 'maxJsonDepth'`, `file`) before anything is sent. Before, a 3,000,000-level IR was
 * sent, blamed on the extension when echoed back, and stopped --transcript with a stack overflow.
 */
function refuseDeepInput(path: string, text: string): void {
  const offset = findExcessNesting(text, MAX_INPUT_DEPTH);
  if (offset >= 0) throw deepInputError(`The input ${path}`, offset, { file: path });
}

/**
 * Reads a Morphir IR input file: a JSON object with a usable `formatVersion`, or a usage error.
 * The operation's `--extension` starts meanwhile ({@link warmOperation}).
 */
export async function readIrInput(io: Io, file: string, flags: OperationFlags = {}): Promise<{ path: string; ir: JsonText; irVersion: string }> {
  const { path, value } = await readJsonInput(io, file, undefined, warmOperation(io, flags));
  if (value.kind !== 'object') {
    throw new MepError(LocalErrorCode.Usage, `The input ${path} is not a JSON object; pass a Morphir IR distribution (morphir-ir.json).`);
  }
  return { path, ir: value, irVersion: detectIrVersion(value, `the input ${path}`) };
}

/**
 * Starts the extension `--extension` names ahead of its session (a wasm extension's worker
 * instantiates it), so that reading a big input and starting the extension overlap. Nothing is
 * started for a process extension or without `--extension` (finding a provider by its claims
 * may have to run one). Never fails: the session reports any problem with the extension.
 */
export async function warmOperation(io: Io, flags: OperationFlags): Promise<void> {
  if (flags.extension === undefined) return;
  try {
    const spec = await launchSpecOfArgument(flags.extension, io, parseLimitFlags(flags), parseGrantFlags(flags));
    if (spec) await warmTransport(spec);
  } catch {
    // The session's own start reports it.
  }
}

/** Usage errors for stray positional arguments and missing required flags of `command`. */
export function requireFlags(command: string, positionals: readonly string[], values: Record<string, unknown>, required: readonly string[]): void {
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}. Run 'mep ${command} --help'.`);
  for (const flag of required) {
    if (!values[flag]) throw new UsageError(`--${flag} is required. Run 'mep ${command} --help'.`);
  }
}

/** Writes a JSON result file atomically and streamed, so a failed run never leaves half a file. */
export async function writeJsonOutput(io: Io, file: string, value: unknown): Promise<string> {
  const path = resolve(io.cwd, file);
  await writeJsonAtomic(path, value);
  return path;
}

/** What {@link runOperation} hands back. */
export interface OperationOutcome<T> {
  result: T;
  provider: ResolvedExtension;
  /** The extension's id as the session reported it. */
  extension: string;
  redactor: Redactor;
}

/**
 * Resolves the provider for `need` (none: the `--extension` given, as it is), runs `fn` in one session with secrets answered per the
 * manifest and configuration, records the transcript when asked, and scrubs secret values from
 * any error that escapes.
 */
export async function runOperation<T>(io: Io, flags: OperationFlags, need: ProviderNeed | undefined, fn: (session: Session, signal: AbortSignal, provider: ResolvedExtension) => Promise<T>): Promise<OperationOutcome<T>> {
  const limits = parseLimitFlags(flags);
  const cancelGraceMs = cancelGraceOf(flags['cancel-grace']);
  // The run's redactor: what the extension resolves is scrubbed from every line io prints.
  const redactor = io.redactor;
  const transcript = flags.transcript ? openTranscript({ path: resolve(io.cwd, flags.transcript), redactor, unredacted: flags['transcript-unredacted'] }) : undefined;
  if (flags['transcript-unredacted'] && transcript) io.err(`mep: the transcript ${flags.transcript} keeps source text (secret values are still redacted).`);
  try {
    const provider = await resolveProvider(flags.extension, need, io, { wrapTransport: transcript?.wrap, limits, grants: parseGrantFlags(flags) });
    const installed = provider.installed;
    const approvals = installed ? await secretApprovals(cliRegistryPaths(io), installed.id) : undefined;
    const resolveSecret = installed && approvals
      ? createSecretResolver({
          extension: installed.id,
          requested: installed.manifest.permissions?.secrets ?? [],
          ...approvals,
          baseDir: io.cwd,
          redactor,
          onEvent: (e) => {
            if (e.outcome !== 'granted') io.err(`mep: ${e.outcome} secret.resolve ${e.reference} for ${e.extension}: ${e.reason}`);
            else if (io.verbose) io.err(`mep: granted secret.resolve ${e.reference} to ${e.extension}`);
          },
        })
      : undefined;
    let extension = provider.spec.name;
    const result = await withSession(
      provider.spec,
      io,
      async (session, signal) => {
        const value = await fn(session, signal, provider);
        extension = session.extension;
        return value;
      },
      { ...(provider.claims ? { claims: provider.claims } : {}), ...(resolveSecret ? { resolveSecret } : {}), ...(transcript ? { wrapTransport: transcript.wrap } : {}), redactor, quiet: flags.json === true, last: true, ...(cancelGraceMs === undefined ? {} : { cancelGraceMs }) },
    );
    // A transcript that lost a message fails the run before its output is written.
    transcript?.close();
    if (transcript?.failure) throw transcript.failure;
    return { result, provider, extension, redactor };
  } catch (error) {
    // The operation's own failure is the one reported; a transcript that also lost messages says so.
    if (transcript?.failure && error !== transcript.failure) io.err(`mep: ${redactor.scrub(transcript.failure.message)}`);
    throw scrubError(error, redactor);
  } finally {
    transcript?.close();
  }
}

function scrubError(error: unknown, redactor: Redactor): unknown {
  if (!redactor.active || !isMepError(error)) return error;
  return new MepError(error.code, redactor.scrub(error.message), { data: redactor.scrubValue(error.data) });
}

/** Diagnostics with secret values scrubbed, for both renderings. */
export function scrubDiagnostics(diagnostics: readonly Diagnostic[], redactor: Redactor): Diagnostic[] {
  return diagnostics.map((d) => redactor.scrubValue(d));
}

/**
 * Renders diagnostics to stderr the compiler way, paths relative to the working directory;
 * `sources` (URI → text) is what was compiled, shown instead of what is on disk now.
 */
export function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[], sources?: ReadonlyMap<string, string>): void {
  for (const line of renderDiagnostics(diagnostics, { cwd: io.cwd, ...(sources ? { sources } : {}) })) io.err(line);
}

/** True when the operation failed or reported an error diagnostic (exit code 1). */
export function hasErrors(result: { success: boolean; diagnostics: readonly Diagnostic[] }): boolean {
  return !result.success || result.diagnostics.some((d) => d.severity === 'error');
}

/**
 * Runs a command body; with `--json`, a failure is also printed on stdout as
 * `{"success": false, "error": {code, message, data}}` before it propagates to the exit-code
 * mapping, so both renderings report the same outcome.
 */
export async function withJsonErrors(io: Io, json: boolean | undefined, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (json) {
      const detail = isMepError(error)
        ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
        : { code: error instanceof Error && error.name === 'UsageError' ? LocalErrorCode.Usage : 'ERR_UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
      await io.json({ success: false, error: detail });
    }
    throw error;
  }
}
