/**
 * The shape every framing decoder shares, and the one way framing errors are built.
 *
 * A decoder turns a byte stream (process stdout) into whole UTF-8 message bodies. It knows no
 * JSON-RPC semantics; it only guarantees that each returned string is one complete body.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { findExcessNesting, nestingLimitError } from '../protocol/json-depth.ts';
import { raiseAdvice } from '../protocol/limits.ts';
import { UnheldNumberError } from '../protocol/json-numbers.ts';
import { parseJson } from '../protocol/json-parse.ts';

/** A stateful byte-stream decoder. After the first error it stays failed and rethrows it. */
export interface FrameDecoder {
  /**
   * Feed the next chunk of bytes; returns the bodies it completed, in order (often none).
   * Throws MepError(ERR_FRAMING) when the stream is not valid framing. With `onBody`, each body
   * is handed over as soon as it is complete (and none are returned), so the bodies that precede
   * a violation in the same chunk are delivered before the throw.
   */
  push(chunk: Uint8Array, onBody?: (body: string) => void): string[];
  /**
   * Call at end of stream. Throws MepError(ERR_FRAMING) when a partial frame is left over, so
   * a truncated last message is never mistaken for a clean end.
   */
  end(): void;
  /** Bytes held for a frame that is not complete yet. */
  readonly bufferedBytes: number;
  /**
   * Bytes read so far that no body carries, past what framing itself needs
   * ({@link FREE_FRAMING_BYTES} of headers a frame; a line's end): extra header lines, blank
   * lines, blanks after a line. A reader counts them as it counts messages, or a peer could make
   * the host read them without end (blank lines carry no message at all).
   */
  readonly overheadBytes: number;
}

/**
 * Header bytes of one frame that are not counted as overhead: `Content-Length: 67108864` and
 * LSP's `Content-Type: application/vscode-jsonrpc; charset=utf-8` with their CRLFs are 82.
 */
export const FREE_FRAMING_BYTES = 128;

/** Options shared by the decoders. */
export interface FrameDecoderOptions {
  /** Who is on the other end (an extension id or path), named in every error message. */
  name: string;
  /**
   * What an over-limit error tells the reader to do. Default: the `mep` option and manifest
   * field that raise an extension's message limit.
   */
  oversizeAdvice?: string;
}

const QUOTE_LIMIT = 80;
const lossy = new TextDecoder('utf-8', { fatal: false });

/**
 * Render bytes for an error message: decoded leniently, JSON-quoted (so control characters
 * are visible) and truncated to a readable length.
 */
export function quoteBytes(bytes: Uint8Array, limit = QUOTE_LIMIT): string {
  const text = lossy.decode(bytes.subarray(0, limit * 4));
  const cut = text.length > limit ? `${text.slice(0, limit)}…` : text;
  return JSON.stringify(cut) + (bytes.length > limit ? ` (${bytes.length} bytes)` : '');
}

/**
 * Build the framing error: says which extension, what was wrong, quotes the offending bytes,
 * and what the extension author should do.
 */
export function framingError(name: string, problem: string, offending?: Uint8Array, data: Record<string, unknown> = {}): MepError {
  const quoted = offending === undefined ? '' : ` near ${quoteBytes(offending)}`;
  return new MepError(
    LocalErrorCode.Framing,
    `Extension ${name} broke the message framing on its output: ${problem}${quoted}. Its standard output must carry protocol frames only; write logs to standard error.`,
    { data: { extension: name, ...data, ...(offending === undefined ? {} : { bytes: quoteBytes(offending) }) } },
  );
}

/**
 * Build the error for a message over the size limit (refused before it is buffered): an
 * ERR_LIMIT naming the extension, both sizes, and the `mep` option and manifest field that
 * raise the limit (`data.limit` is `maxMessageBytes`, `data.limitBytes` its value).
 */
export function messageLimitError(name: string, limitBytes: number, size?: number, data: Record<string, unknown> = {}, advice = raiseAdvice('maxMessageBytes', limitBytes, size)): MepError {
  const what = size === undefined ? `more than ${limitBytes}` : String(size);
  return new MepError(
    LocalErrorCode.Limit,
    `Extension ${name} sent a message of ${what} bytes, over its message size limit of ${limitBytes} bytes; it was refused before being read. ${advice}`,
    { data: { extension: name, limit: 'maxMessageBytes', limitBytes, ...(size === undefined ? {} : { size }), ...data } },
  );
}

/**
 * Decode a body as strict UTF-8 (MEP 0.1: "the byte count covers the UTF-8 JSON body").
 * Invalid UTF-8 is a framing error rather than silently replaced characters.
 */
export function decodeUtf8Body(name: string, body: Uint8Array): string {
  try {
    return strict.decode(body);
  } catch {
    throw framingError(name, 'a message body is not valid UTF-8', body);
  }
}
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parse one decoded body as a JSON object. Anything else (invalid JSON, an array, a number) is
 * a framing error, because the transport can only hand JSON-RPC objects to the peer. A body
 * nested deeper than the host reads (protocol/json-depth.ts) is refused unread with ERR_LIMIT.
 */
export function parseJsonBody(name: string, body: string): { [key: string]: unknown } {
  checkBodyNesting(name, body);
  return jsonBodyOf(name, body, () => parseJson(body, 'data'));
}

/** Throws ERR_LIMIT for a body nested deeper than the host reads, before anything parses it. */
export function checkBodyNesting(name: string, body: string): void {
  const excess = findExcessNesting(body);
  if (excess >= 0) throw nestingLimitError(name, 'message', excess);
}

/** The JSON object `parse` makes of `body` (or throws), else the framing error saying what it is instead. */
export function jsonBodyOf(name: string, body: string, parse: () => unknown): { [key: string]: unknown } {
  let value: unknown;
  try {
    value = parse();
  } catch (error) {
    const problem = error instanceof UnheldNumberError ? `a message body holds a number the host cannot pass on unchanged (${error.message})` : 'a message body is not valid JSON';
    throw framingError(name, problem, encoder.encode(body.slice(0, QUOTE_LIMIT * 2)));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw framingError(name, 'a message body is not a JSON object', encoder.encode(body.slice(0, QUOTE_LIMIT * 2)));
  }
  return value as { [key: string]: unknown };
}
const encoder = new TextEncoder();

/**
 * Joins the chunks of one frame into a single array, copying once (`total` is their summed
 * length). A frame that arrived in one chunk is returned as is.
 */
export function joinChunks(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
