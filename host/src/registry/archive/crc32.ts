/** CRC-32 (IEEE), as zip stores it, for checking inflated members as they stream. */
import * as zlib from 'node:zlib';

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

// zlib's own (Node 20.15 and later) is many times faster; the table is the fallback.
const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/**
 * The CRC-32 of `bytes` as an unsigned 32-bit number; pass the previous result as `previous`
 * to continue over the next chunk (`crc32(b, crc32(a))` equals the CRC of `a` then `b`).
 */
export function crc32(bytes: Uint8Array, previous = 0): number {
  if (native) return native(bytes, previous) >>> 0;
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (const byte of bytes) crc = (TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
