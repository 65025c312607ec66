/**
 * Reference models of the two framing decoders for the wire fuzz (test support). Each reads a
 * whole stream at once, byte by byte, in the plainest way the rules allow, so that the streaming
 * decoders (host/src/framing/), fed the same bytes in any chunks, must agree with it: the same
 * bodies in the same order, then the same error code at the same place, or none.
 */
import { LocalErrorCode } from '../../host/src/protocol/errors.ts';

/** What a stream decodes to: the complete bodies before the first error, and that error's code. */
export interface Decoded {
  bodies: string[];
  error?: string;
}

const CR = 13;
const LF = 10;
const COLON = 58;
const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** True when `bytes` are well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF). */
export function isUtf8(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] as number;
    let need: number;
    let min: number;
    let cp: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) [need, min, cp] = [1, 0x80, b & 0x1f];
    else if (b >= 0xe0 && b <= 0xef) [need, min, cp] = [2, 0x800, b & 0x0f];
    else if (b >= 0xf0 && b <= 0xf4) [need, min, cp] = [3, 0x10000, b & 0x07];
    else return false;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += need + 1;
  }
  return true;
}

/** The body as the decoders hand it over: strict UTF-8, a byte order mark kept. */
function body(bytes: Uint8Array): string | undefined {
  return isUtf8(bytes) ? lenient.decode(bytes) : undefined;
}

/** JavaScript's String.prototype.trim on a windows-1252 decoded header value, on the bytes. */
function trimmedValue(bytes: Uint8Array): string {
  const space = (b: number) => (b >= 0x09 && b <= 0x0d) || b === 0x20 || b === 0xa0;
  let start = 0;
  let end = bytes.length;
  while (start < end && space(bytes[start] as number)) start++;
  while (end > start && space(bytes[end - 1] as number)) end--;
  let text = '';
  for (let i = start; i < end; i++) text += (bytes[i] as number) < 0x80 ? String.fromCharCode(bytes[i] as number) : '\u0080';
  return text;
}

/**
 * Content-Length framing (MEP 0.1, process transport): header lines `Name: value` ending in
 * CRLF, names of token characters, one Content-Length of 1 to 16 digits, a header block of at
 * most `maxHeader` bytes, then that many bytes of strict UTF-8; a declared length over `maxBody`
 * is a limit error; a stream that ends inside a frame is a framing error.
 */
export function referenceContentLength(stream: Uint8Array, maxBody: number, maxHeader: number): Decoded {
  const bodies: string[] = [];
  const fail = (error: string): Decoded => ({ bodies, error });
  let pos = 0;
  while (pos < stream.length) {
    const block = pos;
    let declared = -1;
    for (;;) {
      const line = pos;
      let colon = -1;
      for (;;) {
        if (pos >= stream.length) return fail(LocalErrorCode.Framing);
        if (pos - block >= maxHeader) return fail(LocalErrorCode.Framing);
        const b = stream[pos++] as number;
        if (b === LF) break;
        if (colon >= 0) continue;
        if (pos - line === 1 && b === CR) continue;
        if (stream[line] === CR) return fail(LocalErrorCode.Framing);
        if (b === COLON) {
          if (pos - line === 1) return fail(LocalErrorCode.Framing);
          colon = pos - 1;
        } else if (!TOKEN_CHARS.includes(String.fromCharCode(b))) return fail(LocalErrorCode.Framing);
      }
      const length = pos - line;
      if (length < 2 || stream[pos - 2] !== CR) return fail(LocalErrorCode.Framing);
      if (length === 2) {
        if (declared < 0) return fail(LocalErrorCode.Framing);
        break;
      }
      const name = String.fromCharCode(...stream.subarray(line, colon)).toLowerCase();
      if (name !== 'content-length') continue;
      const value = trimmedValue(stream.subarray(colon + 1, pos - 2));
      if (declared >= 0) return fail(LocalErrorCode.Framing);
      if (!/^[0-9]{1,16}$/.test(value)) return fail(LocalErrorCode.Framing);
      if (Number(value) > maxBody) return fail(LocalErrorCode.Limit);
      declared = Number(value);
    }
    if (stream.length - pos < declared) return fail(LocalErrorCode.Framing);
    const text = body(stream.subarray(pos, pos + declared));
    pos += declared;
    if (text === undefined) return fail(LocalErrorCode.Framing);
    bodies.push(text);
  }
  return { bodies };
}

/**
 * Newline-delimited JSON: lines end at LF; a line of spaces, tabs and CRs only is skipped; the
 * first other byte must be `{`; a line over `maxLine` bytes is a limit error at the byte that
 * passes it (before the `{` check of that byte); trailing blanks are dropped; strict UTF-8; a
 * stream that ends inside a line that is not blank is a framing error.
 */
export function referenceNdjson(stream: Uint8Array, maxLine: number): Decoded {
  const bodies: string[] = [];
  const blank = (b: number) => b === 32 || b === 9 || b === CR;
  let pos = 0;
  while (pos < stream.length) {
    const newline = stream.indexOf(LF, pos);
    const end = newline < 0 ? stream.length : newline;
    let first = -1;
    for (let i = pos; i < end; i++) {
      if (i - pos + 1 > maxLine) return { bodies, error: LocalErrorCode.Limit };
      if (first < 0 && !blank(stream[i] as number)) {
        first = stream[i] as number;
        if (first !== 123) return { bodies, error: LocalErrorCode.Framing };
      }
    }
    if (newline < 0) return first < 0 ? { bodies } : { bodies, error: LocalErrorCode.Framing };
    let last = end;
    while (last > pos && blank(stream[last - 1] as number)) last--;
    const line = stream.subarray(pos, last);
    pos = newline + 1;
    if (first < 0) continue;
    const text = body(line);
    if (text === undefined) return { bodies, error: LocalErrorCode.Framing };
    bodies.push(text);
  }
  return { bodies };
}
