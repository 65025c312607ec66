/**
 * UTF-8 encoding of the host's small messages. `TextEncoder.encode` crosses into the platform and
 * allocates a backing store per call, which on a small message (a ping request: 60 bytes) costs
 * more than the text; a short ASCII text is copied here instead. No I/O, no `node:` module.
 */

const encoder = new TextEncoder();

/** Texts up to this many code units are tried as ASCII first. */
const SMALL_TEXT = 256;

/**
 * The UTF-8 bytes of `text`, exactly as `TextEncoder.encode` writes them (lone surrogates become
 * U+FFFD there), in a buffer of their own.
 *
 * @example
 * const bytes = encodeUtf8(JSON.stringify(message));
 */
export function encodeUtf8(text: string): Uint8Array {
  const length = text.length;
  if (length > SMALL_TEXT) return encoder.encode(text);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return encoder.encode(text);
    bytes[i] = c;
  }
  return bytes;
}

/** The bytes of `parts`, one after another, in a buffer of their own (one a transfer may move). */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
