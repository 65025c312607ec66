/**
 * Runs one operation in a session for a CLI command: starts the extension, shows progress on a
 * terminal, turns Ctrl+C into `$/cancelRequest` first (a second Ctrl+C stops the extension),
 * answers the extension's `secret.resolve`, and always ends the session, so no child process or
 * instance outlives the command.
 */
import { ErrorCode, MepError } from '../protocol/errors.ts';
import { Method } from '../protocol/index.ts';
import type { ClaimSet, ProgressParams } from '../protocol/index.ts';
import { openTransport } from '../registry/launch.ts';
import type { LaunchSpec } from '../registry/launch.ts';
import { memoryLimitUnenforced, requestTimeoutOf } from '../registry/launch-limits.ts';
import type { Redactor } from '../registry/redact.ts';
import { createSession } from '../session/session.ts';
import type { Session } from '../session/session.ts';
import type { Transport } from '../transport/types.ts';
import { createExtensionLogPrinter } from './extension-log.ts';
import type { Io } from './io.ts';

/** What a session of a CLI run may carry besides the launch spec. */
export interface SessionRunOptions {
  /** The pinned claim set: the initialize result must agree with it. */
  claims?: ClaimSet;
  /** Handler for `secret.resolve`; without one every request is denied with -32012. */
  resolveSecret?: (params: unknown) => Promise<string>;
  /** Wraps the transport (transcripts). */
  wrapTransport?: (transport: Transport) => Transport;
  /** Scrubs secret values from the extension's log lines. */
  redactor?: Redactor;
}

function progressLine(p: ProgressParams): string {
  const pct = p.percentage === undefined ? '' : `${String(p.percentage).padStart(3)}% `;
  return `${pct}${p.message ?? p.kind}`;
}

/** The answer for an extension run by path: it has no manifest, so nothing may be granted. */
async function denyAll(params: unknown): Promise<string> {
  const reference = typeof params === 'object' && params !== null ? String((params as { reference?: unknown }).reference) : String(params);
  throw new MepError(ErrorCode.PermissionDenied, `secret.resolve ${reference} denied: only installed extensions whose extension.json lists the reference may resolve secrets.`, {
    data: { reference, reason: 'denied' },
  });
}

/**
 * Opens a session on `spec`, runs `fn` with an AbortSignal wired to Ctrl+C, and closes the session.
 *
 * @example
 * const result = await withSession(spec, io, (session, signal) => session.generate(params, { signal }));
 */
export async function withSession<T>(spec: LaunchSpec, io: Io, fn: (session: Session, signal: AbortSignal) => Promise<T>, options: SessionRunOptions = {}): Promise<T> {
  const started = performance.now();
  if (memoryLimitUnenforced(spec)) io.err(`mep: the memory limit does not apply to ${spec.name}: a native executable is capped with util-linux's prlimit --as, on Linux, and there is none here (only wasm extensions and Node.js scripts are capped).`);
  const redactor = options.redactor ?? io.redactor;
  // Its warnings and errors always reach the user; the rest with --verbose (extension-log.ts).
  let extensionName = (): string => spec.name;
  const log = createExtensionLogPrinter(io, () => extensionName(), redactor);
  const opened = await openTransport(spec, log.sink);
  const transport = options.wrapTransport ? options.wrapTransport(opened) : opened;
  const session = createSession({ transport, requestTimeoutMs: requestTimeoutOf(spec), ...(options.claims ? { claims: options.claims } : {}) });
  extensionName = () => session.extension;
  session.peer.onRequest(Method.SecretResolve, options.resolveSecret ?? denyAll);
  const stopLog = session.onLog(log.onSessionLog);
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      io.err('Cancelling… (press Ctrl+C again to stop the extension)');
      controller.abort();
    } else {
      void session.close();
    }
  };
  process.on('SIGINT', onSigint);
  const stopProgress = io.isTty
    ? session.onProgress((p) => process.stderr.write(`\r\x1b[2K${redactor.scrub(progressLine(p))}${p.kind === 'end' ? '\n' : ''}`))
    : () => undefined;
  try {
    const init = await session.start();
    if (io.verbose) {
      io.err(`extension ${init.extension.id} ${init.extension.version} (${init.extension.name}), ${spec.runtime}, ${spec.path}, protocol ${init.protocolVersion}, started in ${(performance.now() - started).toFixed(1)} ms`);
    }
    const callStarted = performance.now();
    const result = await fn(session, controller.signal);
    if (io.verbose) io.err(`operation took ${(performance.now() - callStarted).toFixed(1)} ms`);
    return result;
  } finally {
    stopProgress();
    stopLog();
    process.off('SIGINT', onSigint);
    await session.close();
  }
}
