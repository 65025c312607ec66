/**
 * SHA-256 in portable TypeScript (no Node or Web Crypto), for the digests in generated Avro
 * names. It runs unchanged in Node and in a QuickJS (ES2020) wasm guest.
 *
 * Bytes travel as byte strings (one char per byte, 0–255): building and concatenating them is
 * native string work in QuickJS, where a `Uint8Array` per piece and a `DataView` call per word
 * were the cost. All word arithmetic stays in int32 (`| 0`, `Int32Array`): QuickJS keeps a
 * value at or above 2^31 (what `>>> 0` yields) as a double, and every bit operation on a
 * double takes its slow path.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The message schedule, reused by every call (the hash never re-enters itself). */
const W = new Int32Array(64);

/** Big-endian bytes of a 32-bit word, as a byte string. */
function word(value: number): string {
  return String.fromCharCode((value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255);
}

/** Big-endian u64 bytes of a non-negative integer below 2^53, as a byte string. */
export function u64(value: number): string {
  const high = Math.floor(value / 0x100000000);
  return word(high) + word(value - high * 0x100000000);
}

/**
 * Compute the SHA-256 digest of the byte string `bytes`: the eight state words, in order (the
 * digest is their big-endian bytes).
 */
export function sha256(bytes: string): Int32Array {
  // FIPS 180-4 §5.1.1: append 0x80, pad with zeros, end with the 64-bit big-endian bit length.
  const length = bytes.length;
  const blocks = ((length + 8) >> 6) + 1;
  const padded = `${bytes}\x80${'\0'.repeat(blocks * 64 - length - 9)}${u64(length * 8)}`;
  let h0 = 0x6a09e667, h1 = 0xbb67ae85 | 0, h2 = 0x3c6ef372, h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f, h5 = 0x9b05688c | 0, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      W[i] = (padded.charCodeAt(j) << 24) | (padded.charCodeAt(j + 1) << 16) | (padded.charCodeAt(j + 2) << 8) | padded.charCodeAt(j + 3);
    }
    for (let i = 16; i < 64; i++) {
      const a = W[i - 15];
      const b = W[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + s1 + ch + K[i] + W[i]) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + s0 + maj) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  return new Int32Array([h0, h1, h2, h3, h4, h5, h6, h7]);
}

/** Only ASCII (the common case): its UTF-8 bytes are its own chars. */
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Encode a string as UTF-8 bytes (a byte string) without `TextEncoder` (absent in some
 * guests); a lone surrogate is encoded as its own three bytes.
 */
export function utf8(value: string): string {
  if (ASCII.test(value)) return value;
  let bytes = '';
  for (let i = 0; i < value.length; i++) {
    let code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
    }
    if (code < 0x80) bytes += String.fromCharCode(code);
    else if (code < 0x800) bytes += String.fromCharCode(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes += String.fromCharCode(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else bytes += String.fromCharCode(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
  }
  return bytes;
}

/** Lower-case hex of the first `count` bytes of a digest. */
export function hexPrefix(words: Int32Array, count: number): string {
  let out = '';
  for (let i = 0; i * 4 < count; i++) out += (words[i] >>> 0).toString(16).padStart(8, '0');
  return out.slice(0, count * 2);
}
