/**
 * Splits a byte stream of human-readable text (an extension's stderr) into lines. Unlike the
 * message decoders it never fails: invalid UTF-8 is replaced, and an over-long line is cut into
 * pieces of at most `maxLineChars`, so a log is never lost and never blocks its producer.
 */

/** A stateful text line splitter. */
export interface LineSplitter {
  /** Feed bytes; returns the lines they completed, without their line terminators. */
  push(chunk: Uint8Array): string[];
  /** Returns the unterminated rest, if any, as a last line. */
  flush(): string[];
}

/** Options for {@link createLineSplitter}. */
export interface LineSplitterOptions {
  /** A longer line is emitted in pieces of this many characters. Default 16 384. */
  maxLineChars?: number;
}

/**
 * Create a line splitter for log text. CRLF and LF both end a line.
 *
 * @example
 * const lines = createLineSplitter();
 * child.stderr.on('data', (c) => lines.push(c).forEach(log));
 * child.stderr.on('end', () => lines.flush().forEach(log));
 */
export function createLineSplitter(options: LineSplitterOptions = {}): LineSplitter {
  const max = options.maxLineChars ?? 16_384;
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let rest = '';

  function drain(text: string): string[] {
    const out: string[] = [];
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline < 0) break;
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      out.push(text.slice(start, end));
      start = newline + 1;
    }
    rest = text.slice(start);
    while (rest.length > max) {
      out.push(rest.slice(0, max));
      rest = rest.slice(max);
    }
    return out;
  }

  return {
    push(chunk) {
      return drain(rest + decoder.decode(chunk, { stream: true }));
    },
    flush() {
      const text = rest + decoder.decode();
      rest = '';
      return text.length > 0 ? [text.replace(/\r$/, '')] : [];
    },
  };
}
