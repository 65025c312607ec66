/**
 * The child's stdin: host messages, framed, each refused before writing when over the message
 * limit (the extension never sees half a message, and the session goes on).
 *
 * Back-pressure: what was written and not yet taken by the child waits in Node.js's buffer (the
 * pipe holds 64 KiB more). Past `maxBacklogBytes` the writer says so (`onHold(true)`: the
 * transport stops reading the child's stdout, so a child that sends requests without reading
 * their answers is held in its own writes); when the buffer drains, `onHold(false)`. A child
 * still not reading after `stallMs` is reported through `onStall` with ERR_LIMIT. The buffer
 * can pass the bound only by what the host sends while the child is held (answers to requests
 * already read: at most HOST_BOUNDS.maxOutstandingRequests of them, and notifications such as
 * `$/cancelRequest`): a new request of the host past it is refused with ERR_LIMIT, not buffered,
 * so a caller sending faster than the child reads (a `mep serve` client pipelining calls) gets
 * the refusal, and a child that reads is never ended as stalled for the caller's pace.
 */
import type { Writable } from 'node:stream';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';

/** Options of {@link createStdinWriter}. */
export interface StdinWriterOptions {
  name: string;
  /** Frames one JSON text (Content-Length or ndjson). */
  encode(json: string): Uint8Array;
  /** Largest message written, in bytes of JSON. */
  maxRequestBytes: number;
  /** True once nothing more may be written (closed, or stopping). */
  isClosed(): boolean;
  /** Bytes written and not yet taken by the child past which it is held. */
  maxBacklogBytes: number;
  /** How long a held child may go on not reading before `onStall`, in ms. */
  stallMs: number;
  /** The child is held (true) or caught up (false). */
  onHold(held: boolean): void;
  /** The child did not read for `stallMs` while held: the error to end the session with. */
  onStall(error: MepError): void;
}

/** Writes framed messages to one child's stdin. */
export interface StdinWriter {
  /**
   * Frames and writes `json`; throws MepError(ERR_TRANSPORT_CLOSED or ERR_LIMIT) instead. A
   * `request` is refused (ERR_LIMIT `maxStdinBacklogBytes`) while the child has more than the
   * bound unread.
   */
  write(json: string, request?: boolean): void;
  /** Stops watching the backlog (the transport closed). */
  dispose(): void;
}

/** The writer of `stdin`. */
export function createStdinWriter(stdin: Writable, options: StdinWriterOptions): StdinWriter {
  const { name, maxRequestBytes } = options;
  // EPIPE and friends: writing to a child that died must not crash the host; the exit handler
  // reports the death with its exit code.
  stdin.on('error', () => undefined);
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  function release(): void {
    clearTimeout(stallTimer);
    stallTimer = undefined;
    options.onHold(false);
  }
  function stalled(): void {
    const backlog = stdin.writableLength;
    options.onStall(
      new MepError(
        LocalErrorCode.Limit,
        `Extension ${name} stopped reading its standard input: ${backlog} bytes the host sent it (over the ${options.maxBacklogBytes} bytes the host holds for an extension) were still unread after ${options.stallMs} ms, so it was stopped. An extension must go on reading stdin, where the answers to its own requests arrive, while it sends the host requests; check that it does not block its input.`,
        { data: { extension: name, limit: 'maxStdinBacklogBytes', limitBytes: options.maxBacklogBytes, backlog, stallMs: options.stallMs } },
      ),
    );
  }
  function hold(): void {
    if (stallTimer !== undefined || stdin.writableLength <= options.maxBacklogBytes) return;
    options.onHold(true);
    stallTimer = setTimeout(stalled, options.stallMs);
    stdin.once('drain', release);
  }
  return {
    write(json, request = false) {
      if (options.isClosed()) throw new MepError(LocalErrorCode.TransportClosed, `Cannot send to extension ${name}: its transport is closed.`, { data: { extension: name } });
      const backlog = stdin.writableLength;
      if (request && backlog > options.maxBacklogBytes) {
        throw new MepError(
          LocalErrorCode.Limit,
          `Extension ${name} has ${backlog} bytes the host sent it still unread (over the ${options.maxBacklogBytes} bytes the host holds for an extension); this request was not sent. Send the next request once earlier ones are answered.`,
          { data: { extension: name, limit: 'maxStdinBacklogBytes', limitBytes: options.maxBacklogBytes, backlog, sent: false } },
        );
      }
      const size = Buffer.byteLength(json, 'utf8');
      if (size > maxRequestBytes) {
        throw new MepError(LocalErrorCode.Limit, `A message of ${size} bytes for extension ${name} is over its message size limit of ${maxRequestBytes} bytes; nothing was sent. ${raiseAdvice('maxMessageBytes', maxRequestBytes, size)}`, {
          data: { extension: name, limit: 'maxMessageBytes', limitBytes: maxRequestBytes, size, direction: 'request', sent: false },
        });
      }
      stdin.write(options.encode(json));
      hold();
    },
    dispose() {
      clearTimeout(stallTimer);
      stdin.off('drain', release);
    },
  };
}
