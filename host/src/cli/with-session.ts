/**
 * Runs one operation in a session for a CLI command: starts the extension, shows progress on a
 * terminal, turns the first Ctrl+C into `$/cancelRequest` and gives the extension a grace period
 * to answer it before ending it (a second Ctrl+C, or an extension that does not advertise
 * cancellation, ends it at once), answers the extension's `secret.resolve`, and always ends the
 * session, so no child process or instance outlives the command.
 */
import { compiledCodeNote } from '../transport/wasm/node/file-module.ts';
import { createStatusThrottle } from './status-throttle.ts';
import { ErrorCode, MepError } from '../protocol/errors.ts';
import { Method } from '../protocol/index.ts';
import type { ClaimSet } from '../protocol/index.ts';
import { openTransport } from '../registry/launch.ts';
import type { LaunchSpec } from '../registry/launch.ts';
import { memoryLimitUnenforced, outputLimitsOf, requestTimeoutOf, wasmLimitsOf } from '../registry/launch-limits.ts';
import type { Redactor } from '../registry/redact.ts';
import { createStageRecorder, processMemoryReport, profileLines } from '../session/call-stages.ts';
import { createSession } from '../session/session.ts';
import type { Session } from '../session/session.ts';
import type { LogSink, Transport } from '../transport/types.ts';
import { GUEST_MEMORY_LOG } from '../transport/wasm/index.ts';
import { resolveWasmLimits } from '../transport/wasm/limits.ts';
import { setLongTimeout } from '../transport/long-timer.ts';
import { endAllProcessGroups } from '../transport/process-group.ts';
import { withoutWasmRenewals } from '../transport/wasm/node/spawner.ts';
import { createExtensionLogPrinter } from './extension-log.ts';
import { createProgressBar } from './progress-bar.ts';
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
  /**
   * After the first Ctrl+C, how long the extension has to answer the cancelled call before it is
   * ended (ms). Default {@link DEFAULT_CANCEL_GRACE_MS}.
   */
  cancelGraceMs?: number;
  /** Draw no progress bar even on a terminal (`--json`). */
  quiet?: boolean;
  /**
   * The command's last session (an operation's): its wasm worker is ended at the close instead
   * of being given a fresh engine that no session would use (`withoutWasmRenewals`).
   */
  last?: boolean;
}

/** How long a cancelled extension has to stop by default: MEP 0.1's cancellation is cooperative. */
export const DEFAULT_CANCEL_GRACE_MS = 2_000;

/** True once `ms` passed (false when `done` settled first). */
function within(done: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = setLongTimeout(() => resolve(false), ms);
    void done.then(() => {
      cancel();
      resolve(true);
    });
  });
}

/** The answer for an extension run by path: it has no manifest, so nothing may be granted. */
async function denyAll(params: unknown): Promise<string> {
  const reference = typeof params === 'object' && params !== null ? String((params as { reference?: unknown }).reference) : String(params);
  throw new MepError(ErrorCode.PermissionDenied, `secret.resolve ${reference} denied: only installed extensions whose extension.json lists the reference may resolve secrets.`, {
    data: { reference, reason: 'denied' },
  });
}

/**
 * Closes a command's last session: a wasm worker is ended rather than given a fresh engine that
 * no session would use. Called again (by {@link withSession}'s own close), it is the same close.
 * `mep compile` calls it as soon as the frontend answered, so the worker's end (12 ms) runs
 * while the IR is written.
 */
export function closeLastSession(session: Session, runtime: LaunchSpec['runtime']): Promise<void> {
  return runtime === 'wasm' ? withoutWasmRenewals(() => session.close()) : session.close();
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
  // With --verbose: the extension's progress stages with their times and the guest's peak memory.
  const stages = createStageRecorder();
  const sink: LogSink = io.verbose ? Object.assign((entry: Parameters<LogSink>[0]) => {
    const memory = GUEST_MEMORY_LOG.exec(entry.message);
    if (memory) stages.memory(Number(memory[1]));
    log.sink(entry);
  }, { busy: log.sink.busy, onDrain: log.sink.onDrain }) : log.sink;
  const opened = await openTransport(spec, sink);
  const transport = options.wrapTransport ? options.wrapTransport(opened) : opened;
  const session = createSession({ transport, requestTimeoutMs: requestTimeoutOf(spec), outputLimits: outputLimitsOf(spec), ...(options.claims ? { claims: options.claims } : {}) });
  extensionName = () => session.extension;
  session.peer.onRequest(Method.SecretResolve, options.resolveSecret ?? denyAll);
  const stopLog = session.onLog(log.onSessionLog);
  const controller = new AbortController();
  const graceMs = options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS;
  // MEP 0.1, Cancellation: only an extension that advertises it is given time to stop.
  const cancellable = (): boolean => session.initializeResult?.capabilities.cancellation === true;
  let stopped = false;
  // Ends the extension now: a wasm instance is dropped, a process group gets SIGTERM then SIGKILL.
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    void transport.close();
    if (spec.runtime === 'process') void endAllProcessGroups(100);
  };
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1 && cancellable()) {
      io.err(`Cancelling… (the extension has ${graceMs} ms to stop; press Ctrl+C again to stop it now)`);
      controller.abort();
    } else {
      if (interrupts === 1) io.err(`Stopping ${session.extension} (it does not advertise cancellation)…`);
      controller.abort();
      stopNow();
    }
  };
  process.on('SIGINT', onSigint);
  // Through io like every line: redacted, made safe, one short line, dropped while stderr lags.
  // A bar on a terminal only, and never beside --json's output.
  const progressLine = createProgressBar();
  // Redrawn at most every HOST_BOUNDS.statusIntervalMs, whatever the rate of reports.
  const status = createStatusThrottle((text, done) => io.status(text, done));
  const unsubscribe = io.isTty && !options.quiet ? session.onProgress((p) => {
    const line = progressLine(p);
    status.show(() => redactor.scrub(line), p.kind === 'end');
  }) : () => undefined;
  const stopProgress = (): void => {
    unsubscribe();
    status.stop();
  };
  const stopStages = io.verbose ? session.onProgress(stages.progress) : () => undefined;
  try {
    // An installed remote that now reports another identity than its lock pins is refused by
    // its transport (registry/remote.ts), with ERR_REGISTRY, before the session sees the answer.
    const init = await session.start();
    if (io.verbose) {
      io.err(`extension ${init.extension.id} ${init.extension.version} (${init.extension.name}), ${spec.runtime}, ${spec.path}, protocol ${init.protocolVersion}, started in ${(performance.now() - started).toFixed(1)} ms`);
      const codeCache = compiledCodeNote();
      if (codeCache !== undefined) io.err(`wasm compiled-code cache: ${codeCache}`);
    }
    stages.start();
    const result = await fn(session, controller.signal);
    if (io.verbose) {
      const limit = spec.runtime === 'wasm' ? resolveWasmLimits(spec.name, wasmLimitsOf(spec)).maxMemoryBytes : undefined;
      for (const line of profileLines(stages.finish(), limit)) io.err(redactor.scrub(line));
      const memory = processMemoryReport(opened);
      if (memory) io.err(memory);
    }
    return result;
  } finally {
    stopProgress();
    stopStages();
    stopLog();
    // The cancelled call's own answer (-32800, or its result) within the grace period, then an
    // orderly shutdown; an extension still busy then is ended. A second Ctrl+C ends the wait.
    if (controller.signal.aborted && !stopped && !(await within(session.peer.abandonedAnswered(), graceMs))) {
      io.err(`mep: ${session.extension} did not stop within ${graceMs} ms of the cancellation; it was ended.`);
      stopNow();
    }
    process.off('SIGINT', onSigint);
    await (options.last ? closeLastSession(session, spec.runtime) : session.close());
  }
}
