/**
 * Pull-style reading of an async byte stream (a gunzip stream) in exact amounts: headers are
 * taken whole, member data is forwarded in the stream's own chunks, so nothing larger than one
 * header or one chunk is ever held. Every byte pulled is reported to `onBytes` (the budget).
 */

/** Reads exact amounts from a stream of chunks. */
export interface ByteReader {
  /**
   * The next `n` bytes (a copy only when they span chunks), or undefined at the end of the
   * stream when nothing of them was there. Throws `truncated()` on a partial read.
   */
  take(n: number): Promise<Uint8Array | undefined>;
  /** Yields the next `n` bytes in pieces (the stream's chunks); throws `truncated()` when short. */
  pieces(n: number): AsyncIterable<Uint8Array>;
}

/**
 * A {@link ByteReader} over `source`; `truncated` makes the error of a stream that ends inside
 * a requested amount.
 *
 * @example
 * const reader = createByteReader(gunzip[Symbol.asyncIterator](), budget.bytes, () => archiveError(url, 'truncated'));
 * const header = await reader.take(512);
 */
export function createByteReader(source: AsyncIterator<Uint8Array>, onBytes: (n: number) => void, truncated: () => Error): ByteReader {
  let chunk: Uint8Array = new Uint8Array(0);
  let at = 0;
  async function fill(): Promise<boolean> {
    while (at >= chunk.length) {
      const next = await source.next();
      if (next.done) return false;
      onBytes(next.value.length);
      chunk = next.value;
      at = 0;
    }
    return true;
  }
  async function* pieces(n: number): AsyncGenerator<Uint8Array> {
    let left = n;
    while (left > 0) {
      if (!(await fill())) throw truncated();
      const piece = chunk.subarray(at, at + Math.min(left, chunk.length - at));
      at += piece.length;
      left -= piece.length;
      yield piece;
    }
  }
  return {
    async take(n) {
      if (!(await fill())) return undefined;
      if (chunk.length - at >= n) {
        const whole = chunk.subarray(at, at + n);
        at += n;
        return whole;
      }
      const out = new Uint8Array(n);
      let filled = 0;
      for await (const piece of pieces(n)) {
        out.set(piece, filled);
        filled += piece.length;
      }
      return out;
    },
    pieces,
  };
}
