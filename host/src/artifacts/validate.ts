/**
 * Validation of artifacts returned by a backend, before anything is written (MEP 0.1, Backend
 * generation: "The host validates all returned artifact paths and contents before it writes any
 * output"). No I/O here: the same checks run in browsers and edge workers.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { Artifact } from '../protocol/index.ts';
import { utf8Length } from '../protocol/artifact.ts';
import { MAX_MESSAGE_BYTES_CEILING } from '../protocol/limits.ts';
import { artifactPathKey, createArtifactPathSet, isAscii } from './path-set.ts';

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
// Windows reserves these device names in every directory, whatever follows the first dot and
// with trailing spaces ignored ("CON .txt"); a portable output tree avoids them.
const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[1-9¹²³]|lpt[1-9¹²³]) *$/i;

/** True when Windows opens the file name `segment` as a device (`CON`, `aux.js`, `COM¹ .txt`). */
export function isWindowsDeviceName(segment: string): boolean {
  return RESERVED.test(segment.split('.', 1)[0] as string);
}
// NTFS gives a long name a short 8.3 alias (`Program Files` is also `PROGRA~1`): a name of that
// shape may be another file's alias there, whatever it is here.
const SHORT_NAME = /^[^.~]{1,7}~[0-9]{1,7}(\.[^.]{1,3})?$/;
// Folders whose files configure or run things where the output lands: a repository's `.git`
// (`core.fsmonitor` in .git/config runs a command at the next `git status`) and a project's `.mep`
// (config.json approves secrets, extensions.lock pins what runs). Compared as the file system does.
const OWN_FOLDERS = new Set(['.git', '.mep']);
// Characters that reorder or hide how a name displays (a `txt.exe` shown as `exe.txt`).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Longest name of one path segment, in UTF-16 units and in UTF-8 bytes (NTFS, ext4, APFS). */
const MAX_SEGMENT_UNITS = 255;
const utf8 = new TextEncoder();

function reject(extension: string, path: string, problem: string, data: Record<string, unknown> = {}): MepError {
  return new MepError(
    LocalErrorCode.Artifact,
    `Extension '${extension}' returned an unsafe artifact ${JSON.stringify(path)}: ${problem}. Nothing was written; report this to the extension's author.`,
    { data: { extension, path, problem, ...data } },
  );
}

/** `String.prototype.isWellFormed` (ES2024; Node.js 20 has it, the project's lib types do not). */
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed;

/**
 * Throws unless text content is well-formed UTF-16: UTF-8 cannot hold a lone surrogate, and
 * TextEncoder writes each as U+FFFD, so two different contents would be written as the same
 * bytes, neither what the extension returned, and nothing would say so.
 */
function checkTextContent(extension: string, artifact: Artifact): void {
  if (isWellFormed.call(artifact.content)) return;
  const offset = artifact.content.search(LONE_SURROGATE);
  const unit = artifact.content.charCodeAt(offset).toString(16);
  throw reject(extension, artifact.path, `its text holds a lone surrogate (\\u${unit} at UTF-16 offset ${offset}), which UTF-8 cannot hold: it would be written as U+FFFD, not as returned; return the text well-formed, or the bytes as binary (base64)`, { offset });
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
    const ascii = isAscii(segment);
    if (isWindowsDeviceName(segment)) throw reject(extension, path, `"${segment}" is a reserved device name on Windows`);
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f<>:"|?*]/.test(segment)) throw reject(extension, path, `"${segment}" contains a character that is not portable in file names`);
    // DEL, C1 controls (0x9b is a CSI to some terminals) and line separators: controls in a listing.
    if (!ascii && /[\u0080-\u009f\u2028\u2029]/.test(segment)) throw reject(extension, path, `"${JSON.stringify(segment).slice(1, -1)}" holds a control character`);
    if (segment.includes('\x7f')) throw reject(extension, path, `"${JSON.stringify(segment).slice(1, -1)}" holds a control character`);
    // A lone surrogate is written as U+FFFD: "a\ud800" and "a\ud801" would be one file.
    if (!ascii && LONE_SURROGATE.test(segment)) throw reject(extension, path, `"${JSON.stringify(segment).slice(1, -1)}" holds a lone surrogate, which is no character: every such name is written as U+FFFD, one file for many names`);
    // Windows drops a trailing dot or space: "a." and "a" would be one file there.
    if (segment.endsWith('.') || segment.endsWith(' ')) throw reject(extension, path, `"${segment}" ends with a dot or a space, which Windows drops`);
    if (segment.includes('~') && SHORT_NAME.test(segment) && (segment.split('.', 1)[0] as string).length <= 8) {
      throw reject(extension, path, `"${segment}" has the shape of an 8.3 short name, which on Windows (NTFS) may be another file's`);
    }
    // An ASCII name is `.git` only when it starts with the dot; any other may hide it (`.g\u200cit`).
    if ((!ascii || segment.startsWith('.')) && OWN_FOLDERS.has(artifactPathKey(segment))) throw reject(extension, path, `"${segment}" is the folder of a Git repository or a mep project, whose files configure what runs there`);
    if (!ascii && BIDI_CONTROL.test(segment)) throw reject(extension, path, `"${JSON.stringify(segment).slice(1, -1)}" holds a bidirectional control character, which changes how the name displays`);
    if (segment.length > MAX_SEGMENT_UNITS || (segment.length * 3 > MAX_SEGMENT_UNITS && utf8.encode(segment).length > MAX_SEGMENT_UNITS)) {
      throw reject(extension, path, `a segment is longer than ${MAX_SEGMENT_UNITS} bytes, which file systems refuse`);
    }
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

/** Checks artifacts one at a time as they arrive; see {@link createArtifactValidator}. */
export interface ArtifactValidator {
  /**
   * Validates one more artifact of the result: a safe path that collides with none before it
   * (see `createArtifactPathSet`), valid base64 for binary content, its size within the limit,
   * and the count within the limit. Returns it ready to write; throws ERR_ARTIFACT or ERR_LIMIT.
   */
  check(artifact: Artifact): ValidatedFile;
  /** How many artifacts passed. */
  readonly count: number;
}

/**
 * Creates a validator for the artifacts of one result of `extension`, for a caller that gets
 * them one at a time (a stream from the guest) and writes each as it passes. Contents are not
 * copied or encoded, so a large result is held in memory only once.
 *
 * @example
 * const validator = createArtifactValidator(extension);
 * for await (const artifact of incoming) await output.add(validator.check(artifact));
 */
export function createArtifactValidator(extension: string, limits: ArtifactLimits = {}): ArtifactValidator {
  const maxBytes = limits.maxArtifactBytes ?? MAX_MESSAGE_BYTES_CEILING;
  const maxCount = limits.maxArtifacts ?? 100_000;
  const paths = createArtifactPathSet(extension);
  return {
    check(artifact) {
      if (paths.size >= maxCount) {
        throw new MepError(LocalErrorCode.Limit, `Extension '${extension}' returned more than ${maxCount} artifacts, the limit.`, {
          data: { extension, count: paths.size + 1, limit: maxCount },
        });
      }
      checkArtifactPath(extension, artifact.path);
      const clean = artifact.binary ? checkBase64(extension, artifact) : undefined;
      if (clean === undefined) checkTextContent(extension, artifact);
      if (sizeBound(artifact, clean) > maxBytes) {
        const bytes = clean === undefined ? utf8Length(artifact.content) : (clean.length / 4) * 3 - (clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0);
        if (bytes > maxBytes) throw reject(extension, artifact.path, `it is ${bytes} bytes, over the ${maxBytes}-byte limit`);
      }
      paths.add(artifact.path);
      return { path: artifact.path, content: clean ?? artifact.content, binary: Boolean(artifact.binary) };
    },
    get count() {
      return paths.size;
    },
  };
}

/**
 * Validates every artifact of one result with {@link createArtifactValidator}: safe paths that
 * name distinct files on every file system (compared after NFC and case folding), valid base64
 * for binary content, and sizes and count within the limits. Throws on the first problem; on
 * success the caller may write all of them with `writeArtifacts`.
 */
export function validateArtifacts(extension: string, artifacts: readonly Artifact[], limits: ArtifactLimits = {}): ValidatedArtifacts {
  const maxCount = limits.maxArtifacts ?? 100_000;
  if (artifacts.length > maxCount) {
    throw new MepError(LocalErrorCode.Limit, `Extension '${extension}' returned ${artifacts.length} artifacts, more than the limit of ${maxCount}.`, {
      data: { extension, count: artifacts.length, limit: maxCount },
    });
  }
  const validator = createArtifactValidator(extension, limits);
  return { extension, files: artifacts.map((artifact) => validator.check(artifact)) };
}
