/**
 * The deadline of everything a wasm guest runs before its first `handle`: compiling the module,
 * instantiating it (data segments, its start function), attaching the host channel
 * (`mep_host_attach`). A guest whose start function loops must fail at the call deadline like a
 * call that loops, and an opening its caller gave up on (a `mep serve` client that left) must
 * stop at once; both end the same way, through {@link StartDeadline}.
 */
import { ErrorCode, LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import { setLongTimeout } from '../long-timer.ts';

/** A running start deadline; see {@link createStartDeadline}. */
export interface StartDeadline {
  /** Why the start was stopped (deadline or abort), once it was. */
  readonly error: MepError | undefined;
  /** `promise`, or the stop error if the deadline passes or the signal aborts first. */
  race<T>(promise: Promise<T>): Promise<T>;
  /** Runs `stop` once when the start is stopped (at once if it already was). */
  onStop(stop: (error: MepError) => void): void;
  /** Ends the deadline (the start finished either way); later stops never happen. */
  dispose(): void;
}

/** The ERR_TIMEOUT of a guest that did not start within `timeoutMs`. */
export function startTimeoutError(name: string, timeoutMs: number): MepError {
  return new MepError(
    LocalErrorCode.Timeout,
    `Wasm extension "${name}" did not start within its deadline of ${timeoutMs} ms (compiling, instantiating and running its start function, before any request): it was stopped. ${raiseAdvice('callTimeoutMs', timeoutMs)}`,
    { data: { extension: name, limit: 'callTimeoutMs', timeoutMs, phase: 'start' } },
  );
}

/** The error of an opening whose caller aborted it: the signal's own MepError, else -32800. */
function abortError(name: string, signal: AbortSignal): MepError {
  const reason: unknown = signal.reason;
  if (reason instanceof MepError) return reason;
  return new MepError(ErrorCode.RequestCancelled, `Starting wasm extension "${name}" was cancelled by its caller; nothing of it is left running.`, {
    data: { extension: name },
    cause: reason,
  });
}

/**
 * Starts a deadline of `timeoutMs` for starting extension `name` (none when undefined), also
 * stopped by `signal`. Throws the abort error at once when `signal` is already aborted.
 *
 * @example
 * const deadline = createStartDeadline('avro', 30_000, signal);
 * try { return await deadline.race(instantiate()); } finally { deadline.dispose(); }
 */
export function createStartDeadline(name: string, timeoutMs: number | undefined, signal?: AbortSignal): StartDeadline {
  if (signal?.aborted) throw abortError(name, signal);
  const stops: ((error: MepError) => void)[] = [];
  const racers = new Set<(error: MepError) => void>();
  let error: MepError | undefined;
  let done = false;

  const stop = (reason: MepError): void => {
    if (done || error !== undefined) return;
    error = reason;
    for (const reject of racers) reject(reason);
    racers.clear();
    for (const run of stops.splice(0)) run(reason);
  };
  const cancelTimer = timeoutMs === undefined ? undefined : setLongTimeout(() => stop(startTimeoutError(name, timeoutMs)), timeoutMs);
  const onAbort = (): void => stop(abortError(name, signal as AbortSignal));
  signal?.addEventListener('abort', onAbort, { once: true });

  return {
    get error() {
      return error;
    },
    race(promise) {
      if (error !== undefined) return Promise.reject(error);
      return new Promise((resolve, reject) => {
        racers.add(reject);
        promise.then(
          (value) => (racers.delete(reject), resolve(value)),
          (cause: unknown) => (racers.delete(reject), reject(cause)),
        );
      });
    },
    onStop(run) {
      if (error !== undefined) run(error);
      else if (!done) stops.push(run);
    },
    dispose() {
      done = true;
      cancelTimer?.();
      signal?.removeEventListener('abort', onAbort);
      stops.length = 0;
      racers.clear();
    },
  };
}
