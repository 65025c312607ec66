/**
 * Bytes <-> message bodies: explicit barrel of `framing/`. Knows no JSON-RPC semantics.
 */
export { createContentLengthDecoder, encodeContentLength, DEFAULT_MAX_BODY_BYTES } from './content-length.ts';
export type { ContentLengthDecoderOptions } from './content-length.ts';
export { createNdjsonDecoder, encodeNdjson, DEFAULT_MAX_LINE_BYTES } from './ndjson.ts';
export type { NdjsonDecoderOptions } from './ndjson.ts';
export { createLineSplitter } from './line-splitter.ts';
export type { LineSplitter, LineSplitterOptions } from './line-splitter.ts';
export { parseJsonBody, quoteBytes, framingError } from './frame-decoder.ts';
export type { FrameDecoder, FrameDecoderOptions } from './frame-decoder.ts';
export { createSseDecoder, encodeSseEvent } from './sse.ts';
export type { SseDecoder } from './sse.ts';
