/**
 * A session whose `generate` hands its caller only artifacts that passed the host's validation
 * (artifacts/validate.ts: safe relative paths, no control or bidirectional characters, distinct
 * files, valid base64), streamed and returned alike. The `mep generate` command validates where
 * it writes; an embedding that shows or offers the artifacts (a page, an edge worker answering
 * JSON) writes nothing itself, so the session checks them before they leave it. No I/O.
 */
import { createArtifactValidator, type ArtifactLimits, type ArtifactValidator } from '../artifacts/validate.ts';
import type { Artifact } from '../protocol/index.ts';
import type { Session } from './types.ts';

/**
 * `session` with a `generate` that throws MepError(ERR_ARTIFACT) naming the first unsafe artifact
 * (`../x`, `/etc/x`, `a\u202Eb`) instead of returning it; everything else is `session`'s own.
 * `limits` bound the artifacts' count and sizes (the validator's defaults without them: a host
 * whose own output limits count the files, as `mep serve`'s do, passes no count of its own).
 *
 * @example
 * const session = withCheckedArtifacts(createSession({ transport }));
 */
export function withCheckedArtifacts(session: Session, limits: ArtifactLimits = {}): Session {
  const checked = Object.create(session) as Session;
  checked.generate = async (params, options = {}) => {
    let validator: ArtifactValidator | undefined;
    const check = (artifact: Artifact): void => void (validator ??= createArtifactValidator(session.extension, limits)).check(artifact);
    const { onArtifact } = options;
    const result = await session.generate(params, onArtifact ? { ...options, onArtifact: (artifact) => {
      check(artifact);
      return onArtifact(artifact);
    } } : options);
    for (const artifact of result.artifacts) check(artifact);
    return result;
  };
  return checked;
}
