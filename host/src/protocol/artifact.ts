/**
 * Generated artifacts as a backend returns them.
 *
 * MEP 0.1, Backend generation: "An artifact has exactly path, content, and binary." This is the one
 * closed object of the protocol: an extra member is refused instead of ignored, because the host
 * writes artifacts and must not guess what an unknown member (a mode, an absolute root) meant.
 * Path safety (relative, inside the output directory) is checked by `artifacts/`, not here.
 */
import * as z from 'zod';

/**
 * One generated file: `path` relative to the host's output directory, `content` UTF-8 text when
 * `binary` is false and base64 bytes when it is true. Exactly these three members.
 */
export const Artifact = z.strictObject({
  path: z.string().min(1),
  content: z.string(),
  binary: z.boolean(),
});
/** One generated file. */
export type Artifact = z.infer<typeof Artifact>;

/** Node's native UTF-8 length (same count, lone surrogates as U+FFFD), where the platform has it. */
const nativeLength = (globalThis as { Buffer?: { byteLength(text: string, encoding: 'utf8'): number } }).Buffer?.byteLength;

/** UTF-8 length of `text` by counting (no copy); lone surrogates count as U+FFFD, as encoding does. */
export function utf8Length(text: string): number {
  // A megabyte artifact: a fraction of a millisecond natively, several here.
  if (nativeLength !== undefined && text.length > 1024) return nativeLength(text, 'utf8');
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

/**
 * The bytes `artifact` takes on disk, counted without decoding it: its UTF-8 length, or for
 * binary content what its base64 decodes to (whitespace skipped; malformed base64 is refused
 * later, by the validator, and counted here as if it were not).
 */
export function artifactBytes(artifact: Artifact): number {
  if (!artifact.binary) return utf8Length(artifact.content);
  const text = artifact.content;
  let chars = 0;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) continue;
    chars++;
    padding = c === 0x3d ? padding + 1 : 0;
  }
  return Math.max(0, Math.floor((chars * 3) / 4) - Math.min(2, padding));
}
