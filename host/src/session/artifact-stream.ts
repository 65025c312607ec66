/**
 * Streamed artifacts on the host side (an extension of MEP 0.1; protocol/notifications.ts): while
 * a generate request runs, the backend may send each artifact as a morphir.backend.artifact
 * notification of its own. They are taken for that request only, each checked against MEP
 * 0.1's artifact shape as it arrives and handed to the caller's sink (the CLI stages it on disk)
 * or collected into the result; the result's `streamedArtifacts` must count exactly the ones that
 * came. A backend that never streams is not affected: its result is returned as it is.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { ArtifactParams, Method } from '../protocol/index.ts';
import type { Artifact, GenerateResult } from '../protocol/index.ts';
import type { SessionCore } from './session-core.ts';
import type { GenerateOptions } from './types.ts';

let nextStreamId = 0;

/**
 * Run one generate call (`run`, with the request id it must use) while taking the artifacts
 * streamed for it. Rejects with the first problem: a malformed notification (ERR_PROTOCOL), a
 * sink that failed, or a count that disagrees with what arrived (ERR_PROTOCOL).
 */
export async function generateWithStream(
  core: SessionCore,
  options: GenerateOptions,
  run: (options: GenerateOptions & { id: string | number }) => Promise<GenerateResult>,
): Promise<GenerateResult> {
  // The request's id tells its artifacts from another request's; one is chosen when not given.
  const id = options.id ?? `mep-generate-${++nextStreamId}`;
  const { onArtifact } = options;
  const collected: Artifact[] = [];
  const sinks: Promise<void>[] = [];
  let received = 0;
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown): void => {
    failure ??= { error };
  };
  const off = core.peer.onNotification(Method.BackendArtifact, (raw: unknown) => {
    const requestId = (raw as { requestId?: unknown } | null)?.requestId;
    if (requestId !== id) return;
    received++;
    const parsed = ArtifactParams.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail(
        new MepError(LocalErrorCode.Protocol, `Extension '${core.extension}' streamed an artifact that is not { path, content, binary } (${issue ? `${issue.path.map(String).join('.')}: ${issue.message}` : 'invalid'}); nothing was written. Report this to the extension's author.`, {
          data: { extension: core.extension, requestId: id, index: received - 1 },
        }),
      );
      return;
    }
    if (failure !== undefined) return;
    if (onArtifact === undefined) {
      collected.push(parsed.data.artifact);
      return;
    }
    try {
      const taken = onArtifact(parsed.data.artifact);
      if (taken !== undefined) sinks.push(Promise.resolve(taken).catch(fail));
    } catch (error) {
      fail(error);
    }
  });
  try {
    const result = await run({ ...options, id });
    await Promise.all(sinks);
    if (failure !== undefined) throw failure.error;
    const claimed = result.streamedArtifacts ?? 0;
    if (claimed !== received) {
      throw new MepError(LocalErrorCode.Protocol, `Extension '${core.extension}' answered that it streamed ${claimed} artifact(s), but ${received} arrived; nothing was written. Report this to the extension's author.`, {
        data: { extension: core.extension, requestId: id, claimed, received },
      });
    }
    if (onArtifact !== undefined || received === 0) return result;
    // As if they had come in the result: nothing left for the caller to count.
    const { streamedArtifacts: _counted, ...rest } = result;
    return { ...rest, artifacts: [...collected, ...result.artifacts] };
  } finally {
    off();
    // A sink still working when the call failed must not fail later unobserved.
    await Promise.allSettled(sinks);
  }
}
