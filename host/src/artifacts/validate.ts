/**
 * Validation of artifacts returned by a backend, before anything is written (MEP 0.1, Backend
 * generation: "The host validates all returned artifact paths and contents before it writes any
 * output"). No I/O here: the same checks run in browsers and edge workers.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { Artifact } from '../protocol/index.ts';

/** Limits applied to a set of artifacts. */
export interface ArtifactLimits {
  /** Largest single artifact after decoding. Default 64 MiB. */
  maxArtifactBytes?: number;
  /** Most artifacts in one result. Default 10,000. */
  maxArtifacts?: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// Windows reserves these device names in every directory; a portable output tree avoids them.
const RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

function reject(extension: string, path: string, problem: string): MepError {
  return new MepError(
    LocalErrorCode.Artifact,
    `Extension '${extension}' returned an unsafe artifact ${JSON.stringify(path)}: ${problem}. Nothing was written; report this to the extension's author.`,
    { data: { extension, path, problem } },
  );
}

/** Throws unless `path` is a safe relative POSIX path that stays inside the output directory. */
export function checkArtifactPath(extension: string, path: string): void {
  if (typeof path !== 'string' || path.length === 0) throw reject(extension, String(path), 'the path is empty');
  if (path.length > 1024) throw reject(extension, path, 'the path is longer than 1024 characters');
  if (path.includes('\0')) throw reject(extension, path, 'the path contains a NUL character');
  if (path.includes('\\')) throw reject(extension, path, 'the path contains a backslash; use "/" separators');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw reject(extension, path, 'the path is absolute; artifact paths are relative to the output directory');
  for (const segment of path.split('/')) {
    if (segment === '') throw reject(extension, path, 'the path has an empty segment');
    if (segment === '.' || segment === '..') throw reject(extension, path, `the path has a "${segment}" segment`);
    if (RESERVED.test(segment)) throw reject(extension, path, `"${segment}" is a reserved device name on Windows`);
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f<>:"|?*]/.test(segment)) throw reject(extension, path, `"${segment}" contains a character that is not portable in file names`);
  }
}

/** Decodes an artifact's content to bytes (UTF-8 text, or base64 when `binary`). */
export function artifactBytes(extension: string, artifact: Artifact): Uint8Array {
  if (!artifact.binary) return new TextEncoder().encode(artifact.content);
  const clean = artifact.content.replace(/\s+/g, '');
  if (clean.length % 4 !== 0 || !BASE64.test(clean)) throw reject(extension, artifact.path, 'binary content is not valid base64');
  const raw = atob(clean);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/**
 * Validates every artifact of one result and returns each one's bytes, keyed by path. Throws on
 * the first problem; on success the caller may write all of them.
 */
export function validateArtifacts(extension: string, artifacts: readonly Artifact[], limits: ArtifactLimits = {}): Map<string, Uint8Array> {
  const maxBytes = limits.maxArtifactBytes ?? 64 * 1024 * 1024;
  const maxCount = limits.maxArtifacts ?? 10_000;
  if (artifacts.length > maxCount) {
    throw new MepError(LocalErrorCode.Limit, `Extension '${extension}' returned ${artifacts.length} artifacts, more than the limit of ${maxCount}.`, {
      data: { extension, count: artifacts.length, limit: maxCount },
    });
  }
  const out = new Map<string, Uint8Array>();
  // Two paths that differ only in case collide on case-insensitive file systems.
  const folded = new Map<string, string>();
  const directories = new Set<string>();
  for (const artifact of artifacts) {
    checkArtifactPath(extension, artifact.path);
    const key = artifact.path.toLowerCase();
    const clash = folded.get(key);
    if (clash !== undefined) throw reject(extension, artifact.path, `it collides with ${JSON.stringify(clash)}`);
    folded.set(key, artifact.path);
    if (directories.has(key)) throw reject(extension, artifact.path, 'another artifact uses it as a directory');
    const segments = key.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      const file = folded.get(parent);
      if (file !== undefined) throw reject(extension, artifact.path, `its parent ${JSON.stringify(file)} is also an artifact`);
      directories.add(parent);
    }
    const bytes = artifactBytes(extension, artifact);
    if (bytes.length > maxBytes) throw reject(extension, artifact.path, `it is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
    out.set(artifact.path, bytes);
  }
  return out;
}
