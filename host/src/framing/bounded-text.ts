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
