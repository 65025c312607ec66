/**
 * Validation of artifacts returned by a backend, before anything is written (MEP 0.1, Backend
 * generation: "The host validates all returned artifact paths and contents before it writes any
 * output"). No I/O here: the same checks run in browsers and edge workers.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { Artifact } from '../protocol/index.ts';
import { MAX_MESSAGE_BYTES_CEILING } from '../protocol/limits.ts';

/** Limits applied to a set of artifacts. */
export interface ArtifactLimits {
  /**
   * Largest single artifact after decoding. Default: no cap of its own beyond the largest
   * message (an artifact arrives inside a message, already held to the user's message limit).
   */
  maxArtifactBytes?: number;
  /** Most artifacts in one result. Default 100,000 (one file per type of a very large model). */
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
  const clean = checkBase64(extension, artifact);
  const raw = atob(clean);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** The base64 text of a binary artifact without whitespace, or a rejection naming it. */
function checkBase64(extension: string, artifact: Artifact): string {
  const clean = /\s/.test(artifact.content) ? artifact.content.replace(/\s+/g, '') : artifact.content;
  if (clean.length % 4 !== 0 || !BASE64.test(clean)) throw reject(extension, artifact.path, 'binary content is not valid base64');
  return clean;
}

/**
 * The most bytes `artifact` can take on disk, computed without encoding it: UTF-8 needs at most
 * 3 bytes per UTF-16 code unit, base64 decodes 4 characters to at most 3 bytes.
 */
function sizeBound(artifact: Artifact, clean: string | undefined): number {
  return clean === undefined ? artifact.content.length * 3 : (clean.length / 4) * 3;
}

/** UTF-8 length of `text` by counting (no copy); lone surrogates count as U+FFFD, as encoding does. */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** One artifact that passed validation, ready to be written as it is (nothing encoded yet). */
export interface ValidatedFile {
  /** The artifact's relative POSIX path. */
  path: string;
  /** Its content as returned: UTF-8 text, or base64 without whitespace when `binary`. */
  content: string;
  binary: boolean;
}

/** The artifacts of one result after validation, in the order returned; see {@link validateArtifacts}. */
export interface ValidatedArtifacts {
  /** The extension that returned them, named in write errors. */
  extension: string;
  files: readonly ValidatedFile[];
}

/**
 * Checks artifacts one at a time as they arrive (streamed) against everything seen before:
 * the checks of {@link validateArtifacts}, which is this over a whole result.
 */
export interface ArtifactValidator {
  /** Validates `artifact` against itself and the ones added before; throws on a problem. */
  add(artifact: Artifact): ValidatedFile;
  /** How many were added. */
  readonly count: number;
}

/** An {@link ArtifactValidator} for the artifacts of one result of `extension`. */
export function createArtifactValidator(extension: string, limits: ArtifactLimits = {}): ArtifactValidator {
  const maxBytes = limits.maxArtifactBytes ?? MAX_MESSAGE_BYTES_CEILING;
  const maxCount = limits.maxArtifacts ?? 100_000;
  // Two paths that differ only in case collide on case-insensitive file systems.
  const folded = new Map<string, string>();
  const directories = new Set<string>();
  let count = 0;
  return {
    get count() {
      return count;
    },
    add(artifact) {
      if (count + 1 > maxCount) {
        throw new MepError(LocalErrorCode.Limit, `Extension '${extension}' returned more than the limit of ${maxCount} artifacts.`, {
          data: { extension, count: count + 1, limit: maxCount },
        });
      }
      checkArtifactPath(extension, artifact.path);
      const key = artifact.path.toLowerCase();
      const clash = folded.get(key);
      if (clash !== undefined) throw reject(extension, artifact.path, `it collides with ${JSON.stringify(clash)}`);
      if (directories.has(key)) throw reject(extension, artifact.path, 'another artifact uses it as a directory');
      const segments = key.split('/');
      for (let i = 1; i < segments.length; i++) {
        const file = folded.get(segments.slice(0, i).join('/'));
        if (file !== undefined) throw reject(extension, artifact.path, `its parent ${JSON.stringify(file)} is also an artifact`);
      }
      const clean = artifact.binary ? checkBase64(extension, artifact) : undefined;
      if (sizeBound(artifact, clean) > maxBytes) {
        const bytes = clean === undefined ? utf8Length(artifact.content) : (clean.length / 4) * 3 - (clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0);
        if (bytes > maxBytes) throw reject(extension, artifact.path, `it is ${bytes} bytes, over the ${maxBytes}-byte limit`);
      }
      folded.set(key, artifact.path);
      for (let i = 1; i < segments.length; i++) directories.add(segments.slice(0, i).join('/'));
      count++;
      return { path: artifact.path, content: clean ?? artifact.content, binary: Boolean(artifact.binary) };
    },
  };
}

/**
 * Validates every artifact of one result: safe, distinct paths (also case-insensitively, and no
 * file used as a directory), valid base64 for binary content, and sizes within the limits. Throws
 * on the first problem; on success the caller may write all of them with `writeArtifacts`.
 * Contents are not copied or encoded here, so a large result is held in memory only once.
 */
export function validateArtifacts(extension: string, artifacts: readonly Artifact[], limits: ArtifactLimits = {}): ValidatedArtifacts {
  const maxCount = limits.maxArtifacts ?? 100_000;
  if (artifacts.length > maxCount) {
    throw new MepError(LocalErrorCode.Limit, `Extension '${extension}' returned ${artifacts.length} artifacts, more than the limit of ${maxCount}.`, {
      data: { extension, count: artifacts.length, limit: maxCount },
    });
  }
  const validator = createArtifactValidator(extension, limits);
  return { extension, files: artifacts.map((artifact) => validator.add(artifact)) };
}
