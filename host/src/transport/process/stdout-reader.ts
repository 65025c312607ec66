/**
 * The child's stdout: protocol frames only (MEP 0.1), untrusted input decoded into messages.
 * A violation ends the session with the decoder's error. Reading stops while anyone holds it
 * (the peer is behind on streamed artifacts, or the child is not reading what the host wrote):
 * the pipe fills and the extension waits in its write; at most one chunk already read is still
 * delivered. The end of stdout is reported: nothing more can arrive.
 */
import type { Readable } from 'node:stream';
import type { FrameDecoder } from '../../framing/frame-decoder.ts';
import { checkBodyNesting, jsonBodyOf } from '../../framing/frame-decoder.ts';
import { createOrderedParser } from '../../framing/ordered-parse.ts';
import { LocalErrorCode, MepError, isMepError } from '../../protocol/errors.ts';
import type { JsonRpcMessage } from '../types.ts';
import type { HeldAccount } from '../../framing/held-budget.ts';

/** Options of {@link readStdout}. */
export interface StdoutReaderOptions {
  name: string;
  decoder: FrameDecoder;
  /** True once messages are no longer wanted. */
  isClosed(): boolean;
  /** One decoded message, with its body (to measure it). */
  onMessage(message: JsonRpcMessage, body: string): void;
  /** Bytes read that carry no message (the decoder's `overheadBytes`, as they grow): to count them. */
  onOverhead?(bytes: number): void;
  /** The output was not valid framing or JSON. */
  onError(error: MepError): void;
  /** The child closed its stdout. */
  onEnd(): void;
  /**
   * A budget shared with other sessions (`mep serve`'s), charged with what this reader holds
   * unfinished: the partial frame in the decoder and the frames not parsed yet. Past it, the
   * session ends with ERR_LIMIT (`maxFrameBufferBytes`).
   */
  frames?: { account: HeldAccount; maxBytes: number };
}

/** The stdout side of one transport. */
export interface StdoutReader {
  /** Stops reading while `holder` holds it; reading resumes when no holder is left. */
  hold(holder: string, held: boolean): void;
}

/** Starts reading `stream`. */
export function readStdout(stream: Readable, options: StdoutReaderOptions): StdoutReader {
  const { name, decoder } = options;
  const holders = new Set<string>();
  // A violation ends the session: nothing read after it is delivered.
  const fail = (error: unknown): void => (parser.close(), options.onError(isMepError(error) ? error : new MepError(LocalErrorCode.Framing, `Extension ${name} sent unreadable output.`, { cause: error })));
  let parsing = false;
  let ended = false;
  /** Characters of frames handed to the parser and not delivered yet. */
  let queued = 0;
  /** The decoder's overhead bytes already reported. */
  let counted = 0;
  const charge = (): boolean => {
    const frames = options.frames;
    if (frames === undefined || options.isClosed() || frames.account.hold(decoder.bufferedBytes + queued)) return true;
    fail(
      new MepError(
        LocalErrorCode.Limit,
        `Extension ${name} was ended: its unfinished frames (${decoder.bufferedBytes + queued} bytes) took the frames the server holds for all its sessions past ${frames.maxBytes} bytes (maxFrameBufferBytes). Retry when the server is less busy, or start it with a higher --max-frame-buffer.`,
        { data: { extension: name, limit: 'maxFrameBufferBytes', limitBytes: frames.maxBytes, held: decoder.bufferedBytes + queued } },
      ),
    );
    return false;
  };
  // In arrival order; a large frame in slices, so one message of millions of values from one
  // extension does not hold the event loop every other session of `mep serve` shares.
  const parser = createOrderedParser({
    onValue(value, body) {
      queued -= body.length;
      charge();
      if (options.isClosed()) return;
      let message: JsonRpcMessage;
      try {
        message = jsonBodyOf(name, body, () => value) as JsonRpcMessage;
      } catch (error) {
        return fail(error);
      }
      options.onMessage(message, body);
    },
    onError(error, body) {
      queued -= body.length;
      charge();
      if (options.isClosed()) return;
      try {
        jsonBodyOf(name, body, () => {
          throw error;
        });
      } catch (framing) {
        fail(framing);
      }
    },
    onBusy(busy) {
      parsing = busy;
      reader.hold('parse', busy);
      // The end is reported after the last message, not while it is still being parsed.
      if (!busy && ended) options.onEnd();
    },
  });
  stream.on('data', (chunk: Buffer) => {
    if (options.isClosed()) return parser.close();
    try {
      decoder.push(chunk, (body) => {
        checkBodyNesting(name, body);
        queued += body.length;
        parser.push(body);
      });
    } catch (error) {
      return fail(error);
    }
    const overhead = decoder.overheadBytes;
    if (overhead > counted) {
      const bytes = overhead - counted;
      counted = overhead;
      options.onOverhead?.(bytes);
      if (options.isClosed()) return parser.close();
    }
    charge();
  });
  stream.on('end', () => {
    ended = true;
    if (!parsing) options.onEnd();
  });
  const reader: StdoutReader = {
    hold(holder, held) {
      if (held) holders.add(holder);
      else holders.delete(holder);
      if (holders.size > 0) stream.pause();
      else stream.resume();
    },
  };
  return reader;
}
