/**
 * A text artifact whose content the host received as ASCII bytes (a wasm guest's `mep_artifact`)
 * and hands on as those bytes: the stager writes them as they came, with no decode to a string and
 * no encode back (32.5 MB of the Avro row's 2,000 files: docs/performance-log.md, avro6). Its
 * `content` is still the string the protocol promises, decoded on the first read and kept, so
 * any reader of the artifact (a sink, the collected result, `JSON.stringify`) sees the same
 * object as before. Only the host makes one (a JSON value cannot be one): the bytes are known
 * ASCII, so their length is the content's UTF-8 length and its UTF-16 length alike. No I/O, no
 * `node:` imports (see index.ts).
 */
import type { Artifact } from './artifact.ts';

const bytesOf = new WeakMap<object, Uint8Array>();
const ascii = new TextDecoder('utf-8');

/**
 * The artifact `{ path, content, binary: false }` whose content is `bytes`, which the caller has
 * checked are ASCII (every byte below 0x80). `path` is taken as given: the session checks the
 * artifact's shape as for any other.
 */
export function asciiTextArtifact(path: unknown, bytes: Uint8Array): Artifact {
  let content: string | undefined;
  const artifact = { path } as Artifact;
  Object.defineProperty(artifact, 'content', { enumerable: true, configurable: false, get: () => (content ??= ascii.decode(bytes)) });
  artifact.binary = false;
  bytesOf.set(artifact, bytes);
  return artifact;
}

/** The ASCII bytes of an artifact made by {@link asciiTextArtifact}, else undefined. */
export function asciiBytesOf(artifact: object): Uint8Array | undefined {
  return bytesOf.get(artifact);
}

/**
 * The UTF-16 length of `artifact.content` (the stream window's and the collector's count),
 * without decoding the content of an ASCII artifact.
 */
export function contentUnits(artifact: Artifact): number {
  return asciiBytesOf(artifact)?.length ?? artifact.content.length;
}
