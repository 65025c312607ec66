/**
 * Server-sent events <-> message bodies: `data:` lines of one event joined by newlines, events
 * ended by a blank line (WHATWG HTML, Server-sent events). Only `data` matters here: `event`,
 * `id`, `retry` and comments are skipped (and counted for the caller). Knows no JSON-RPC semantics.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** Feeds decoded text of an event stream; calls `onData` with each event's data. */
export interface SseDecoder {
  push(text: string): void;
}

/** Characters of fields (`event: message`, `id: 12`) and line ends an event with data carries uncounted. */
const FIELD_ALLOWANCE = 64;

/**
 * A decoder bounded to `maxEventChars` per event, its fields and comments included (ERR_LIMIT past
 * it, thrown from `push`). What no event delivers (comments, fields, blank lines between events:
 * keep-alives; an event with data carries {@link FIELD_ALLOWANCE} characters of them free) is
 * reported to `onSkipped` in characters, line ends included, as each event ends, so a caller can
 * bound it (it may throw to end the stream).
 */
export function createSseDecoder(onData: (data: string) => void, maxEventChars: number, onSkipped: (chars: number) => void = () => undefined): SseDecoder {
  let data: string[] = [];
  let size = 0;
  /** Characters of the event's comments, fields and line ends (its `data:` values aside). */
  let fields = 0;
  const tooLong = (): MepError => new MepError(LocalErrorCode.Limit, `An event of the stream is longer than ${maxEventChars} characters, the message limit.`, { data: { limit: 'maxMessageBytes', max: maxEventChars } });
  const line = (text: string): void => {
    if (text === '') {
      const event = data;
      const skipped = event.length > 0 ? Math.max(0, fields + 1 - FIELD_ALLOWANCE) : fields + 1;
      data = [];
      size = 0;
      fields = 0;
      if (skipped > 0) onSkipped(skipped);
      if (event.length > 0) onData(event.join('\n'));
      return;
    }
    if (!text.startsWith('data:')) {
      // event:, id:, retry:, comments: part of the event's size, and counted for the caller.
      size += text.length + 1;
      fields += text.length + 1;
      if (size > maxEventChars) throw tooLong();
      return;
    }
    const value = text.slice(text[5] === ' ' ? 6 : 5);
    size += value.length;
    fields += 6;
    if (size > maxEventChars) throw tooLong();
    data.push(value);
  };
  /** The unfinished line, in the pieces it came in (never searched again), and its length. */
  let pieces: string[] = [];
  let pending = 0;
  /** The last chunk ended with CR: a LF opening the next one belongs to that line end. */
  let afterCr = false;
  const lineEnd = /[\r\n]/g;
  return {
    push(text) {
      if (text === '') return; // an empty chunk between CR and LF keeps them one line end
      let start = 0;
      if (afterCr && text.startsWith('\n')) start = 1;
      afterCr = false;
      // Each character is searched once: the search starts where the last line ended, and what
      // is left of a chunk waits as a piece, so a long line sent slowly costs its length, not its
      // length times its chunks.
      lineEnd.lastIndex = start;
      for (let match = lineEnd.exec(text); match !== null; match = lineEnd.exec(text)) {
        const end = match.index;
        const rest = text.slice(start, end);
        line(pieces.length === 0 ? rest : pieces.join('') + rest);
        pieces = [];
        pending = 0;
        start = end + 1;
        if (text[end] === '\r') {
          if (end === text.length - 1) afterCr = true;
          else if (text[end + 1] === '\n') start = end + 2;
        }
        lineEnd.lastIndex = start;
      }
      if (start < text.length) {
        pieces.push(text.slice(start));
        pending += text.length - start;
      }
      if (pending > maxEventChars) throw new MepError(LocalErrorCode.Limit, `A line of the event stream is longer than ${maxEventChars} characters, the message limit.`, { data: { limit: 'maxMessageBytes', max: maxEventChars } });
    },
  };
}

/** One SSE event carrying `data` (one line: JSON text has no raw newlines). */
export function encodeSseEvent(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}
