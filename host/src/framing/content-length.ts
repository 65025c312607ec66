/**
 * MEP 0.1 process framing: `Content-Length: N\r\n\r\n` followed by N bytes of UTF-8 JSON.
 *
 * MEP 0.1, Native executable transport: "Readers must accept additional headers and ignore
 * headers they do not understand. Header names are case-insensitive. Writers must emit
 * Content-Length." Everything else on stdout (a log line, a bare JSON object) is a framing
 * violation, reported as soon as the first byte that cannot start or continue a header arrives.
 */
import { FREE_FRAMING_BYTES, decodeUtf8Body, framingError, joinChunks, messageLimitError, type FrameDecoder, type FrameDecoderOptions } from './frame-decoder.ts';

/** Options for {@link createContentLengthDecoder}. */
export interface ContentLengthDecoderOptions extends FrameDecoderOptions {
  /** Largest accepted body in bytes; a larger declared length is refused from the header. Default 64 MiB. */
  maxBodyBytes?: number;
  /** Largest accepted header block in bytes. Default 8 KiB. */
  maxHeaderBytes?: number;
}

/** Default body limit, the reference host's 64 MiB per message. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_HEADER_BYTES = 8 * 1024;
const CR = 13;
const LF = 10;
const COLON = 58;

// RFC 7230 token characters, the only bytes allowed in a header name.
const TOKEN = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TOKEN[c.charCodeAt(0)] = 1;

const ascii = new TextDecoder('latin1');
const encoder = new TextEncoder();

/**
 * Create a Content-Length decoder. Bodies are collected as chunk views and joined once, so a
 * 64 MiB body arriving in 64 KiB chunks costs linear time. Chunks passed to `push` must not be
 * mutated afterwards (Node stream chunks never are).
 *
 * @example
 * const decoder = createContentLengthDecoder({ name: 'org.example.ext' });
 * child.stdout.on('data', (chunk) => { for (const body of decoder.push(chunk)) handle(JSON.parse(body)) });
 */
export function createContentLengthDecoder(options: ContentLengthDecoderOptions): FrameDecoder {
  const name = options.name;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxHeader = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;

  const header = new Uint8Array(maxHeader);
  let headerLen = 0;
  let lineStart = 0;
  let colonSeen = false;
  let contentLength = -1;
  let overhead = 0;

  let bodyParts: Uint8Array[] = [];
  let bodyFilled = 0;
  let inBody = false;
  let failure: unknown;

  function fail(error: unknown): never {
    failure = error;
    throw error;
  }

  function offendingLine(chunk: Uint8Array, next: number): Uint8Array {
    const before = header.subarray(lineStart, headerLen);
    const after = chunk.subarray(next, next + 80);
    const out = new Uint8Array(before.length + after.length);
    out.set(before, 0);
    out.set(after, before.length);
    return out;
  }

  function completeLine(chunk: Uint8Array, next: number): void {
    // header[lineStart .. headerLen) ends with LF; it must end with CRLF.
    if (headerLen - lineStart < 2 || header[headerLen - 2] !== CR) {
      fail(framingError(name, 'a header line does not end with CRLF', offendingLine(chunk, next)));
    }
    const line = header.subarray(lineStart, headerLen - 2);
    if (line.length === 0) {
      if (contentLength < 0) fail(framingError(name, 'a header block has no Content-Length', header.subarray(0, headerLen)));
      // Extra header lines are read and ignored (MEP 0.1): past the few bytes a frame needs, they
      // are the reader's to count, or 8 KiB of them could carry every 30-byte notification.
      overhead += Math.max(0, headerLen - FREE_FRAMING_BYTES);
      inBody = true;
      return;
    }
    const colon = line.indexOf(COLON);
    const field = ascii.decode(line.subarray(0, colon)).toLowerCase();
    if (field === 'content-length') {
      const value = ascii.decode(line.subarray(colon + 1)).trim();
      if (contentLength >= 0) fail(framingError(name, 'a header block repeats Content-Length', header.subarray(0, headerLen)));
      if (!/^\d{1,16}$/.test(value)) fail(framingError(name, `Content-Length ${JSON.stringify(value)} is not a non-negative integer`, line));
      const declared = Number(value);
      if (declared > maxBody) {
        fail(messageLimitError(name, maxBody, declared, { declared }, options.oversizeAdvice));
      }
      contentLength = declared;
    }
    lineStart = headerLen;
    colonSeen = false;
  }

  function finishBody(): string {
    const body = joinChunks(bodyParts, bodyFilled);
    const text = decodeUtf8Body(name, body);
    bodyParts = [];
    bodyFilled = 0;
    inBody = false;
    headerLen = 0;
    lineStart = 0;
    colonSeen = false;
    contentLength = -1;
    return text;
  }

  function push(chunk: Uint8Array, onBody?: (body: string) => void): string[] {
    if (failure !== undefined) throw failure;
    const out: string[] = [];
    const emit = onBody ?? ((body: string) => void out.push(body));
    let pos = 0;
    while (pos < chunk.length) {
      if (inBody) {
        const take = Math.min(contentLength - bodyFilled, chunk.length - pos);
        if (take > 0) bodyParts.push(chunk.subarray(pos, pos + take));
        bodyFilled += take;
        pos += take;
        if (bodyFilled === contentLength) emit(finishBody());
        continue;
      }
      const byte = chunk[pos++];
      if (headerLen === maxHeader) fail(framingError(name, `a header block is longer than ${maxHeader} bytes`, header.subarray(0, 80)));
      header[headerLen++] = byte;
      if (byte === LF) {
        completeLine(chunk, pos);
        if (inBody && contentLength === 0) emit(finishBody());
      } else if (!colonSeen) {
        // Still in the header name: reject the first byte that cannot belong to one, so a log
        // line is reported at once instead of after 8 KiB or a newline.
        const lineLen = headerLen - lineStart;
        if (lineLen === 1 && byte === CR) continue;
        if (header[lineStart] === CR || (byte === COLON ? lineLen === 1 : TOKEN[byte] !== 1)) {
          fail(framingError(name, 'expected a header line such as "Content-Length: 42"', offendingLine(chunk, pos)));
        }
        if (byte === COLON) colonSeen = true;
      }
    }
    return out;
  }

  return {
    push,
    end() {
      if (failure !== undefined) throw failure;
      if (inBody || headerLen > 0) {
        fail(framingError(name, 'the stream ended inside a frame', header.subarray(0, headerLen), { bodyBytes: bodyFilled, declared: contentLength }));
      }
    },
    get bufferedBytes() {
      return headerLen + bodyFilled;
    },
    get overheadBytes() {
      return overhead;
    },
  };
}

/** Encode one JSON body as a Content-Length frame (the header counts UTF-8 bytes). */
export function encodeContentLength(json: string): Uint8Array {
  const body = encoder.encode(json);
  const head = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`);
  const frame = new Uint8Array(head.length + body.length);
  frame.set(head, 0);
  frame.set(body, head.length);
  return frame;
}
