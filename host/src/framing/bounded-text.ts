/**
 * A web stream's bytes as UTF-8 text, read no further than a bound: the HTTP client transport
 * reads answers with it and the edge worker's handler reads request bodies.
 */

/**
 * The stream's text, or undefined once more than `maxBytes` arrived (the stream is cancelled
 * there: the rest is never read). No stream reads as ''.
 */
export async function readBoundedText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string | undefined> {
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * At most the first `maxBytes` of the stream as UTF-8 text (a cut character dropped), the rest
 * never read: the stream is cancelled there. For showing the start of an error answer.
 */
export async function readTextPrefix(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const bytes: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes.push(value.subarray(0, maxBytes - size));
      size += Math.min(value.byteLength, maxBytes - size);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const joined = new Uint8Array(size);
  let at = 0;
  for (const piece of bytes) {
    joined.set(piece, at);
    at += piece.byteLength;
  }
  return new TextDecoder().decode(joined).replace(/\uFFFD$/, '');
}
