/**
 * Positions in source text. MEP positions are zero-based lines and UTF-16 characters (as LSP's);
 * the Elm parser reports one-based rows and columns that count code points, and counts a line
 * only at `\n`. {@link createLineIndex} converts between the two for one text.
 */

/** A zero-based MEP position. */
export interface Position {
  line: number;
  character: number;
}

/** A zero-based MEP range, end exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/** One text's lines, for position conversions. */
export interface LineIndex {
  /** The number of lines (`\n`-separated). */
  readonly lineCount: number;
  /** The text of zero-based line `line` without its line break ('' past the end). */
  line(line: number): string;
  /** The zero-based position of a UTF-16 offset. */
  positionAt(offset: number): Position;
  /** The UTF-16 offset of a zero-based position (clamped to the text). */
  offsetAt(position: Position): number;
  /** An Elm row and column (one-based; columns in code points) as a zero-based position. */
  fromElm(row: number, column: number): Position;
}

/**
 * Indexes `text` by line.
 *
 * @example
 * createLineIndex('a\n😀b').fromElm(2, 2); // { line: 1, character: 2 }
 */
export function createLineIndex(text: string): LineIndex {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineText = (line: number): string => {
    if (line < 0 || line >= starts.length) return '';
    const end = line + 1 < starts.length ? starts[line + 1] - 1 : text.length;
    const raw = text.slice(starts[line], end);
    return raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  };
  return {
    lineCount: starts.length,
    line: lineText,
    positionAt(offset) {
      const at = Math.max(0, Math.min(offset, text.length));
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= at) lo = mid;
        else hi = mid - 1;
      }
      return { line: lo, character: at - starts[lo] };
    },
    offsetAt({ line, character }) {
      if (line >= starts.length) return text.length;
      const l = Math.max(0, line);
      return Math.min(starts[l] + Math.max(0, Math.min(character, lineText(l).length)), text.length);
    },
    fromElm(row, column) {
      const line = Math.max(0, Math.min(row - 1, starts.length - 1));
      const content = lineText(line);
      // Walk `column - 1` code points: a character outside the BMP is two UTF-16 units.
      let character = 0;
      for (let k = 1; k < column && character < content.length; k++) {
        const unit = content.charCodeAt(character);
        character += unit >= 0xd800 && unit <= 0xdbff && character + 1 < content.length ? 2 : 1;
      }
      return { line, character };
    },
  };
}

/** A range covering `length` UTF-16 characters from `start` on its line. */
export function rangeAt(start: Position, length = 0): Range {
  return { start, end: { line: start.line, character: start.character + length } };
}
