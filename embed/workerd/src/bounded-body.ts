/**
 * The request body of an edge route, read within a bound (the served host's, HTTP_LIMITS): a
 * declared length past it is refused unread, a chunked body is not read past it.
 */
import { readBoundedText } from '../../../host/src/framing/bounded-text.ts';
import type { HttpRefusal } from '../../../host/src/serve/http-guard.ts';

/** The body's text, or the 413 refusal naming `maxBodyBytes`. */
export async function readBody(request: Request, maxBodyBytes: number): Promise<{ text: string } | { refused: HttpRefusal }> {
  const refused: HttpRefusal = { status: 413, code: 'too-large', message: `The request body is larger than ${maxBodyBytes} bytes (maxBodyBytes): send less at once, or raise maxBodyBytes where the handler is created.` };
  if (Number(request.headers.get('content-length') ?? 0) > maxBodyBytes) return { refused };
  const text = await readBoundedText(request.body, maxBodyBytes);
  return text === undefined ? { refused } : { text };
}
