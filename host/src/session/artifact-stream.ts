/**
 * Streamed artifacts on the host side (an extension of MEP 0.1; protocol/notifications.ts): while
 * a generate request runs, the backend may send each artifact as a morphir.backend.artifact
 * notification of its own. They are taken for that request only, each checked against MEP
 * 0.1's artifact shape as it arrives and handed to the caller's sink (the CLI stages it on disk)
 * or collected into the result; the result's `streamedArtifacts` must count exactly the ones that
 * came. A backend that never streams is not affected: its result is returned as it is.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { DEFAULT_LIMITS, raiseAdvice } from '../protocol/limits.ts';
import { ArtifactParams, Method } from '../protocol/index.ts';
import type { Artifact, GenerateResult } from '../protocol/index.ts';
import { longDelay } from '../transport/long-timer.ts';
import type { SessionCore } from './session-core.ts';
import { createOutputBudget } from './output-budget.ts';
import { createStreamWindow } from './stream-window.ts';
import type { GenerateOptions } from './types.ts';

let nextStreamId = 0;

/** Rejects after `ms` (never for Infinity) with the error `timeout` makes; `stop` disarms it. */
function deadline(ms: number, timeout: () => MepError): { expired: Promise<never>; stop(): void } {
  // Split into timers the platform holds, so the longest deadline is kept, not clamped.
  const { promise, cancel } = longDelay<never>(ms, () => {
    throw timeout();
  });
  // Observed by the race below when it matters; a disarmed or unraced deadline must not surface.
  promise.catch(() => undefined);
  return { expired: promise, stop: cancel };
}

/**
 * Run one generate call (`run`, with the request id it must use) while taking the artifacts
 * streamed for it. Rejects with the first problem: a malformed notification (ERR_PROTOCOL), a
 * sink that failed, a count that disagrees with what arrived (ERR_PROTOCOL), collected artifacts
 * over `maxCollectedBytes` (ERR_LIMIT), artifacts (streamed and returned) past the session's
 * output bound, `maxOutputBytes` or `maxOutputFiles` (ERR_LIMIT, output-budget.ts), or a sink still writing at the call's deadline
 * (ERR_TIMEOUT). While the sink is behind (stream-window.ts), the handler returns a promise, so
 * the peer holds the extension back until the sink caught up.
 */
export async function generateWithStream(
  core: SessionCore,
  options: GenerateOptions,
  run: (options: GenerateOptions & { id: string | number }) => Promise<GenerateResult>,
): Promise<GenerateResult> {
  // The request's id tells its artifacts from another request's; one is chosen when not given.
  const id = options.id ?? `mep-generate-${++nextStreamId}`;
  const { onArtifact } = options;
  const timeoutMs = options.timeoutMs ?? core.requestTimeoutMs;
  const started = Date.now();
  const maxCollected = options.maxCollectedBytes ?? DEFAULT_LIMITS.maxMessageBytes;
  const collected: Artifact[] = [];
  let collectedBytes = 0;
  // Streamed and returned artifacts together: each is counted before it is staged or returned.
  const budget = createOutputBudget(core.extension, id, core.outputLimits);
  const window = createStreamWindow(options.streamWindow);
  // The call's own signal, also aborted when its artifacts pass the output bound.
  const stop = new AbortController();
  const outer = options.signal;
  const forward = (): void => stop.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  let overBound: unknown;
  let received = 0;
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown): void => {
    failure ??= { error };
    // A failed stream writes nothing more: the extension need not wait for the sink.
    window.release();
  };
  const off = core.peer.onNotification(Method.BackendArtifact, (raw: unknown) => {
    const requestId = (raw as { requestId?: unknown } | null)?.requestId;
    if (requestId !== id) return undefined;
    received++;
    const parsed = ArtifactParams.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail(
        new MepError(LocalErrorCode.Protocol, `Extension '${core.extension}' streamed an artifact that is not { path, content, binary } (${issue ? `${issue.path.map(String).join('.')}: ${issue.message}` : 'invalid'}); nothing was written. Report this to the extension's author.`, {
          data: { extension: core.extension, requestId: id, index: received - 1 },
        }),
      );
      return undefined;
    }
    if (failure !== undefined) return undefined;
    const { artifact } = parsed.data;
    try {
      budget.take(artifact, 'streamed');
    } catch (error) {
      fail(error);
      collected.length = 0;
      // Past the output bound the call is over: the extension is told to stop streaming.
      overBound = error;
      stop.abort(error);
      return undefined;
    }
    if (onArtifact === undefined) {
      collectedBytes += artifact.content.length;
      if (collectedBytes > maxCollected) {
        fail(
          new MepError(LocalErrorCode.Limit, `Extension '${core.extension}' streamed more than ${maxCollected} bytes of artifacts, the most one result may carry, for a caller that collects them into the result; nothing was written. Take them as they arrive (onArtifact), or ${raiseAdvice('maxMessageBytes', maxCollected).replace(/^R/, 'r')}`, {
            data: { extension: core.extension, requestId: id, limit: 'maxMessageBytes', limitBytes: maxCollected },
          }),
        );
        collected.length = 0;
        return undefined;
      }
      collected.push(artifact);
      return undefined;
    }
    try {
      const taken = onArtifact(artifact);
      if (taken === undefined) return undefined;
      const work = Promise.resolve(taken);
      work.catch(fail);
      return window.take(artifact.content.length, work);
    } catch (error) {
      fail(error);
      return undefined;
    }
  });
  try {
    let result: GenerateResult;
    try {
      result = await run({ ...options, id, signal: stop.signal });
    } catch (error) {
      // A call cancelled because it passed the output bound fails with that bound.
      if (overBound !== undefined) throw overBound;
      throw error;
    }
    // The sink finishes within the call's deadline: a disk that stopped ends the call as a
    // guest that stopped would.
    // A deadline of 0 or Infinity is none, as for the request itself.
    const left = deadline(timeoutMs > 0 ? timeoutMs - (Date.now() - started) : Infinity, () =>
      new MepError(LocalErrorCode.Timeout, `The artifacts that extension '${core.extension}' streamed were not all taken within the call's deadline of ${timeoutMs} ms (the sink, e.g. the disk, fell behind); nothing was written. ${raiseAdvice('callTimeoutMs', timeoutMs)}`, {
        data: { extension: core.extension, requestId: id, limit: 'callTimeoutMs', timeoutMs },
      }),
    );
    try {
      await Promise.race([window.settled(), left.expired]);
    } finally {
      left.stop();
    }
    if (failure !== undefined) throw failure.error;
    const claimed = result.streamedArtifacts ?? 0;
    if (claimed !== received) {
      throw new MepError(LocalErrorCode.Protocol, `Extension '${core.extension}' answered that it streamed ${claimed} artifact(s), but ${received} arrived; nothing was written. Report this to the extension's author.`, {
        data: { extension: core.extension, requestId: id, claimed, received },
      });
    }
    // The returned artifacts count with the streamed ones, before the caller publishes any.
    for (const artifact of result.artifacts) budget.take(artifact, 'returned');
    if (onArtifact !== undefined || received === 0) return result;
    // As if they had come in the result: nothing left for the caller to count.
    const { streamedArtifacts: _counted, ...rest } = result;
    return { ...rest, artifacts: [...collected, ...result.artifacts] };
  } finally {
    outer?.removeEventListener('abort', forward);
    off();
    // Nothing more is taken for this call: an extension still held back goes on (its
    // artifacts are dropped). A sink's writes still running are not awaited — a stuck disk must
    // not outlast the deadline — and cannot fail unobserved: each has `fail` attached.
    window.release();
  }
}
