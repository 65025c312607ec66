/**
 * The request body of an edge route, read within the served host's bounds (HTTP_LIMITS): one body
 * at most `maxBodyBytes` (a declared length past it refused unread, a chunked body not read past
 * it), and all bodies held at once at most the budget's total, as `mep serve --http` holds them
 * (http-body-budget.ts): a request whose body does not fit waits unread, in arrival order.
 */
import { readBoundedText } from '../../../host/src/framing/bounded-text.ts';
import { utf8Length } from '../../../host/src/protocol/artifact.ts';
import { createBodyBudget, type BodyBudget } from '../../../host/src/serve/http-body-budget.ts';
import type { HttpRefusal } from '../../../host/src/serve/http-guard.ts';
import { HTTP_LIMITS } from '../../../host/src/serve/http-routes.ts';

/** What a route may hold of request bodies: one at most `maxBodyBytes`, all together at most `maxBodiesBytes`. */
export interface BodyLimits {
  /** Largest request body in bytes. Default 64 MiB, as `mep serve --http`'s. */
  maxBodyBytes?: number;
  /** Request bodies held at once (from the first byte read until the answer), in bytes. Default 128 MiB, as `mep serve --http`'s; never less than `maxBodyBytes`. */
  maxBodiesBytes?: number;
}

/** A body read: its text, and the release of its share of the budget (once its answer is made). */
export interface ReadBody {
  text: string;
  release(): void;
}

/** The bodies of one route; {@link BodyReader.read} gives the text of a request's body or the refusal. */
export interface BodyReader {
  read(request: Request): Promise<ReadBody | { refused: HttpRefusal }>;
}

/** A reader of request bodies within `limits`, its budget shared by every request it reads. */
export function createBodyReader(limits: BodyLimits = {}): BodyReader {
  const maxBodyBytes = limits.maxBodyBytes ?? HTTP_LIMITS.maxBodyBytes;
  const budget: BodyBudget = createBodyBudget(Math.max(maxBodyBytes, limits.maxBodiesBytes ?? HTTP_LIMITS.maxBodiesBytes));
  const tooLarge: HttpRefusal = { status: 413, code: 'too-large', message: `The request body is larger than ${maxBodyBytes} bytes (maxBodyBytes): send less at once, or raise maxBodyBytes where the handler is created.` };
  return {
    async read(request) {
      const length = request.headers.get('content-length');
      const declared = length === null ? undefined : Number(length);
      if (declared !== undefined && declared > maxBodyBytes) return { refused: tooLarge };
      // Reserved before a byte is read: the declared size, or the largest body when chunked.
      const reserved = await budget.reserve(declared !== undefined && Number.isFinite(declared) ? declared : maxBodyBytes, request.signal ?? new AbortController().signal);
      if (!reserved) return { refused: { status: 408, code: 'gone', message: 'The client left while its request waited for the bodies before it to be answered.' } };
      try {
        const text = await readBoundedText(request.body, maxBodyBytes);
        if (text === undefined) {
          reserved.release();
          return { refused: tooLarge };
        }
        reserved.shrink(utf8Length(text));
        return { text, release: () => reserved.release() };
      } catch (error) {
        reserved.release();
        throw error;
      }
    },
  };
}
