/**
 * The child's stdin: host messages, framed, each refused before writing when over the message
 * limit (the extension never sees half a message, and the session goes on).
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
}

/** Writes framed messages to one child's stdin. */
export interface StdinWriter {
  /** Frames and writes `json`; throws MepError(ERR_TRANSPORT_CLOSED or ERR_LIMIT) instead. */
  write(json: string): void;
}

/** The writer of `stdin`. */
export function createStdinWriter(stdin: Writable, options: StdinWriterOptions): StdinWriter {
  const { name, maxRequestBytes } = options;
  // EPIPE and friends: writing to a child that died must not crash the host; the exit handler
  // reports the death with its exit code.
  stdin.on('error', () => undefined);
  return {
    write(json) {
      if (options.isClosed()) throw new MepError(LocalErrorCode.TransportClosed, `Cannot send to extension ${name}: its transport is closed.`, { data: { extension: name } });
      const size = Buffer.byteLength(json, 'utf8');
      if (size > maxRequestBytes) {
        throw new MepError(LocalErrorCode.Limit, `A message of ${size} bytes for extension ${name} is over its message size limit of ${maxRequestBytes} bytes; nothing was sent. ${raiseAdvice('maxMessageBytes', maxRequestBytes, size)}`, {
          data: { extension: name, limit: 'maxMessageBytes', limitBytes: maxRequestBytes, size, direction: 'request' },
        });
      }
      stdin.write(options.encode(json));
    },
  };
}
