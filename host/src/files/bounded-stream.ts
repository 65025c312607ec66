/** Reading a stream nobody bounds (stdin: a pipe from anyone, `/dev/zero`) up to a size. */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { raiseAdvice } from '../protocol/limits.ts';
import type { LimitName } from '../protocol/limits.ts';

/** What {@link readStreamBounded} reads and how it names it. */
export interface BoundedStreamOptions {
  /** What the stream is, for messages: `stdin`. */
  what: string;
  /** The most bytes it may give; one more is ERR_LIMIT, and the rest is never read. */
  maxBytes: number;
  /** The user limit that raises `maxBytes`, named in the refusal. */
  limit: LimitName;
}

/**
 * All bytes of `source` when they are at most `maxBytes`; else ERR_LIMIT naming `limit`, with
 * reading stopped at the first chunk past it (an endless stream costs the host `maxBytes` and a
 * chunk, never more).
 *
 * @example
 * const params = await readStreamBounded(process.stdin, { what: 'stdin', maxBytes: 64 << 20, limit: 'maxMessageBytes' });
 */
export async function readStreamBounded(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, options: BoundedStreamOptions): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of source) {
    total += chunk.byteLength;
    if (total > options.maxBytes) {
      // Leaving the loop returns the iterator: a Node.js stream is destroyed, nothing more is read.
      throw new MepError(LocalErrorCode.Limit, `Cannot read ${options.what}: it gave more than ${options.maxBytes} bytes, over its limit. ${raiseAdvice(options.limit, options.maxBytes, total)}`, {
        data: { file: options.what, reason: 'too-large', maxBytes: options.maxBytes, limit: options.limit },
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
