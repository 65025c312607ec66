/**
 * Newline-delimited JSON framing: one JSON object per line, for extensions and daemons that
 * cannot do Content-Length (host-daemon protocol: "JSON-RPC 2.0 messages, one per line").
 * Blank lines are ignored; a trailing CR is stripped; a line that does not start with `{` is a
 * framing violation (typically a log line printed on stdout).
 */
import { decodeUtf8Body, framingError, joinChunks, messageLimitError, type FrameDecoder, type FrameDecoderOptions } from './frame-decoder.ts';

/** Options for {@link createNdjsonDecoder}. */
export interface NdjsonDecoderOptions extends FrameDecoderOptions {
  /** Longest accepted line in bytes, refused as soon as it is exceeded. Default 8 MiB. */
  maxLineBytes?: number;
}

/** Default line limit for ndjson framing. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;
const LF = 10;
const CR = 13;
const OPEN_BRACE = 123;
const encoder = new TextEncoder();

function isBlank(byte: number): boolean {
  return byte === 32 || byte === 9 || byte === CR;
}

/**
 * Create an ndjson decoder. A line's chunks are joined once, at its newline, so long lines cost
 * linear time.
 *
 * @example
 * const decoder = createNdjsonDecoder({ name: 'forma-daemon' });
 * for (const body of decoder.push(chunk)) handle(JSON.parse(body));
 */
export function createNdjsonDecoder(options: NdjsonDecoderOptions): FrameDecoder {
  const name = options.name;
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let parts: Uint8Array[] = [];
  let lineBytes = 0;
  let firstByte = -1; // the first non-blank byte of the current line, -1 while none
  /** Blank lines and blanks after a line's JSON (past its CR): read, and carrying nothing. */
  let overhead = 0;
  let failure: unknown;

  function fail(error: unknown): never {
    failure = error;
    throw error;
  }

  function takeLine(): Uint8Array {
    const line = joinChunks(parts, lineBytes);
    parts = [];
    lineBytes = 0;
    firstByte = -1;
    return line;
  }

  function append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    const overLimit = () => fail(messageLimitError(name, maxLine, undefined, {}, options.oversizeAdvice));
    if (firstByte < 0) {
      for (let i = 0; i < piece.length; i++) {
        const byte = piece[i] as number;
        if (isBlank(byte)) continue;
        // Whichever problem comes first in the line is reported, however the line was cut.
        if (lineBytes + i + 1 > maxLine) overLimit();
        firstByte = byte;
        if (byte !== OPEN_BRACE) fail(framingError(name, 'a line is not a JSON object', piece));
        break;
      }
    }
    lineBytes += piece.length;
    if (lineBytes > maxLine) overLimit();
    parts.push(piece);
  }

  function push(chunk: Uint8Array, onBody?: (body: string) => void): string[] {
    if (failure !== undefined) throw failure;
    const out: string[] = [];
    const emit = onBody ?? ((body: string) => void out.push(body));
    let pos = 0;
    while (pos < chunk.length) {
      if (firstByte < 0 && lineBytes === 0) {
        // Between messages: whole blank lines are stepped over without a copy or an object each
        // (a line at a time, 64 MiB of LFs cost the host 21 s of CPU), and counted as overhead;
        // the blanks before a line's JSON stay part of its line.
        let at = pos;
        let lineStart = pos;
        while (at < chunk.length) {
          const byte = chunk[at] as number;
          if (byte === LF) lineStart = at + 1;
          else if (!isBlank(byte)) break;
          at++;
        }
        overhead += lineStart - pos;
        pos = lineStart;
        if (pos === chunk.length) break;
      }
      const newline = chunk.indexOf(LF, pos);
      if (newline < 0) {
        append(chunk.subarray(pos));
        break;
      }
      append(chunk.subarray(pos, newline));
      pos = newline + 1;
      if (firstByte < 0) {
        overhead += takeLine().length + 1; // a blank line, and its LF
        continue;
      }
      let line = takeLine();
      let end = line.length;
      while (end > 0 && isBlank(line[end - 1])) end--;
      overhead += Math.max(0, line.length - end - 1);
      line = line.subarray(0, end);
      emit(decodeUtf8Body(name, line));
    }
    return out;
  }

  return {
    push,
    end() {
      if (failure !== undefined) throw failure;
      if (firstByte >= 0) fail(framingError(name, 'the stream ended inside a line', parts[0]));
    },
    get bufferedBytes() {
      return lineBytes;
    },
    get overheadBytes() {
      return overhead;
    },
  };
}

/**
 * Encode one JSON text as an ndjson line. Raw line breaks can only be insignificant whitespace
 * in valid JSON (inside strings they are escaped), so they are replaced by spaces.
 */
export function encodeNdjson(json: string): Uint8Array {
  return encoder.encode(`${json.replace(/[\r\n]/g, ' ')}\n`);
}
