/**
 * Messages of one stream (a socket client's lines, a child's frames) parsed in arrival order,
 * the large ones in slices ({@link parseJsonSliced}) so that one message of millions of values
 * does not hold the event loop every other client and session share. A small message with
 * nothing waiting before it is parsed at once, as before; once a large one is being parsed, the
 * messages after it wait their turn (a small second never overtakes a large first) and the
 * stream is held (`onBusy(true)`) so that no more than what was already read piles up.
 */
import { parseJson } from '../protocol/json-parse.ts';
import { SLICED_FROM_CHARS, parseJsonMessage } from '../protocol/json-sliced.ts';

/** Options of {@link createOrderedParser}. */
export interface OrderedParserOptions {
  /** A text's value, in arrival order. */
  onValue(value: unknown, text: string): void;
  /** A text that is not JSON (a `SyntaxError`), in arrival order. */
  onError(error: unknown, text: string): void;
  /** True while texts wait for a sliced parse (hold the stream), false once none does. */
  onBusy(busy: boolean): void;
  /** Texts from this length up are parsed in slices. Default {@link SLICED_FROM_CHARS}. */
  slicedFromChars?: number;
}

/** See {@link createOrderedParser}. */
export interface OrderedParser {
  /** Parse `text` after everything pushed before it. */
  push(text: string): void;
  /** Drop what waits and stop the parse under way; nothing more is delivered. */
  close(): void;
}

/**
 * Creates the parser of one stream.
 *
 * @example
 * const parser = createOrderedParser({ onValue: deliver, onError: refuse, onBusy: (busy) => (busy ? stream.pause() : stream.resume()) });
 * try { decoder.push(chunk, (line) => parser.push(line)); } finally { parser.close(); }
 */
export function createOrderedParser(options: OrderedParserOptions): OrderedParser {
  const slicedFrom = options.slicedFromChars ?? SLICED_FROM_CHARS;
  const stopped = new AbortController();
  const queue: string[] = [];
  let running = false;

  const deliver = (text: string, parse: () => unknown): void => {
    let value: unknown;
    try {
      value = parse();
    } catch (error) {
      options.onError(error, text);
      return;
    }
    options.onValue(value, text);
  };

  const drain = async (): Promise<void> => {
    running = true;
    options.onBusy(true);
    while (queue.length > 0 && !stopped.signal.aborted) {
      const text = queue.shift() as string;
      let value: unknown;
      try {
        value = await parseJsonMessage(text, { signal: stopped.signal, slicedFromChars: slicedFrom });
      } catch (error) {
        if (stopped.signal.aborted) break;
        options.onError(error, text);
        continue;
      }
      if (stopped.signal.aborted) break;
      options.onValue(value, text);
    }
    running = false;
    if (!stopped.signal.aborted) options.onBusy(false);
  };

  return {
    push(text) {
      if (stopped.signal.aborted) return;
      if (!running && text.length < slicedFrom) return deliver(text, () => parseJson(text, 'data'));
      queue.push(text);
      if (!running) void drain();
    },
    close() {
      stopped.abort();
      queue.length = 0;
    },
  };
}
