/**
 * Server-sent events <-> message bodies: `data:` lines of one event joined by newlines, events
 * ended by a blank line (WHATWG HTML, Server-sent events). Only `data` matters here: `event`,
 * `id`, `retry` and comments are skipped. Knows no JSON-RPC semantics.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** Feeds decoded text of an event stream; calls `onData` with each event's data. */
export interface SseDecoder {
  push(text: string): void;
}

/** A decoder bounded to `maxEventChars` per event (ERR_LIMIT past it, thrown from `push`). */
export function createSseDecoder(onData: (data: string) => void, maxEventChars: number): SseDecoder {
  let buffer = '';
  let data: string[] = [];
  let size = 0;
  const line = (text: string): void => {
    if (text === '') {
      if (data.length > 0) onData(data.join('\n'));
      data = [];
      size = 0;
      return;
    }
    if (!text.startsWith('data:')) return; // event:, id:, retry:, comments
    const value = text.slice(text[5] === ' ' ? 6 : 5);
    size += value.length;
    if (size > maxEventChars) throw new MepError(LocalErrorCode.Limit, `An event of the stream is longer than ${maxEventChars} characters, the message limit.`, { data: { limit: 'maxMessageBytes', max: maxEventChars } });
    data.push(value);
  };
  return {
    push(text) {
      buffer += text;
      let end: number;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const skip = buffer.startsWith('\r\n', end) ? 2 : 1;
        // A lone \r at the end may be half of \r\n: wait for the next chunk.
        if (buffer[end] === '\r' && end === buffer.length - 1) break;
        line(buffer.slice(0, end));
        buffer = buffer.slice(end + skip);
      }
      if (buffer.length > maxEventChars) throw new MepError(LocalErrorCode.Limit, `A line of the event stream is longer than ${maxEventChars} characters, the message limit.`, { data: { limit: 'maxMessageBytes', max: maxEventChars } });
    },
  };
}

/** One SSE event carrying `data` (one line: JSON text has no raw newlines). */
export function encodeSseEvent(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}
