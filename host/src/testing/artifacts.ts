/** Reading what an extension generated, the way a test wants it: one artifact's text by path. */
import type { Artifact } from '../protocol/index.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/**
 * The text of the artifact at `path` in a generate result (a binary artifact's base64 is
 * decoded as UTF-8). Throws MepError(ERR_USAGE) listing the paths there are when none matches,
 * so a failing test says what the extension did write.
 *
 * @example
 * assert.equal(artifactText(await extension.generate({ ir }), 'catalog.txt'), 'module Customer\n');
 */
export function artifactText(result: { artifacts: readonly Artifact[] }, path: string): string {
  const artifact = result.artifacts.find((a) => a.path === path);
  if (artifact === undefined) {
    const paths = result.artifacts.map((a) => a.path);
    throw new MepError(LocalErrorCode.Usage, `No artifact ${JSON.stringify(path)} in the result; it has ${paths.length === 0 ? 'none' : paths.map((p) => JSON.stringify(p)).join(', ')}.`, { data: { path, paths } });
  }
  if (!artifact.binary) return artifact.content;
  const bytes = Uint8Array.from(atob(artifact.content), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}
