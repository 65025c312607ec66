/**
 * What a process extension may make the host hold besides its messages themselves: requests to
 * the host not answered yet (at most HOST_BOUNDS.maxOutstandingRequests), and notifications —
 * logs, progress — between two requests of the host (at most `maxNotificationBytes`, the wasm
 * transport's per-call budget). The artifacts a running request of the host streams
 * (morphir.backend.artifact with its id) are its result's data and are not counted, as in the
 * wasm transport: they are bounded per message and held back by the peer's pause.
 *
 * Answers that settle no request of the host (ids never sent, second answers, id null), and the
 * extension's own requests to the host, count as notifications. Only the envelope is looked at (`method`, `id`, and an artifact's `requestId`), never params.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { HOST_BOUNDS, raiseAdvice } from '../../protocol/limits.ts';
import { Method } from '../../protocol/methods.ts';
import type { JsonRpcMessage } from '../types.ts';

type Id = string | number;

/** The accounts of one transport. */
export interface InboundLimits {
  /** A message the host sends: a request starts a new notification budget; a response ends an extension's request. */
  sent(message: JsonRpcMessage): void;
  /** A message from the extension, with its body: the error that ends the session when it is over a bound. */
  received(message: JsonRpcMessage, body: string): MepError | undefined;
  /** Bytes of the stream that carry no message (an SSE stream's comments, keep-alives, fields without data), counted as notifications. */
  skipped(bytes: number, what: string): MepError | undefined;
}

const isId = (id: unknown): id is Id => typeof id === 'string' || typeof id === 'number';

/** The accounts of the extension `name`. */
export function createInboundLimits(name: string, maxNotificationBytes: number, maxOutstandingRequests: number = HOST_BOUNDS.maxOutstandingRequests): InboundLimits {
  /** Requests of the host not answered yet (their artifacts are not counted). */
  const hostRequests = new Set<Id>();
  /** Requests of the extension the host has not answered yet. */
  const extensionRequests = new Set<Id>();
  let notified = 0;
  return {
    sent(message) {
      if (!isId(message.id)) return;
      if (typeof message.method === 'string') {
        hostRequests.add(message.id);
        notified = 0;
      } else extensionRequests.delete(message.id);
    },
    received(message, body) {
      const { id, method } = message;
      // An answer settles a request of the host once; anything else without a method (an id
      // never sent, a second answer, id null, no id) settles nothing and is counted as a
      // notification, or an extension could make the host parse such messages for the whole
      // deadline, unbounded.
      if (typeof method !== 'string' && isId(id) && hostRequests.delete(id)) return undefined;
      if (typeof method !== 'string') return count(body, 'answers that settle no request of the host');
      if (isId(id)) {
        // An id still outstanding again: the set would not grow, so the bound would not see it,
        // and the host could not tell which request an answer is for.
        if (extensionRequests.has(id)) {
          return new MepError(LocalErrorCode.Protocol, `Extension ${name} sent a request with the id ${JSON.stringify(id)} while its earlier request with that id was not answered yet; it was stopped. An extension must not reuse an id before its answer arrives.`, {
            data: { extension: name, id },
          });
        }
        extensionRequests.add(id);
        // Its bytes count as a notification's: one request at a time, each answered at once,
        // stayed under the outstanding bound while the host decoded them without end.
        if (extensionRequests.size <= maxOutstandingRequests) return count(body, 'requests to the host');
        return new MepError(LocalErrorCode.Limit, `Extension ${name} sent the host more than ${maxOutstandingRequests} requests without waiting for their answers; it was stopped. An extension must wait for answers before it sends more requests (at most ${maxOutstandingRequests} at once).`, {
          data: { extension: name, limit: 'maxOutstandingRequests', limitCount: maxOutstandingRequests },
        });
      }
      if (method === Method.BackendArtifact && hostRequests.has((message.params as { requestId?: Id } | undefined)?.requestId as Id)) return undefined;
      return count(body, 'notifications');
    },
    skipped: (bytes, what) => count(bytes, what),
  };

  function count(body: string | number, what: string): MepError | undefined {
    notified += typeof body === 'number' ? body : Buffer.byteLength(body, 'utf8');
    if (notified <= maxNotificationBytes) return undefined;
    return new MepError(LocalErrorCode.Limit, `Extension ${name} sent more than its budget of ${maxNotificationBytes} bytes of notifications in one call (the last were ${what}); it was stopped. ${raiseAdvice('maxNotificationBytes', maxNotificationBytes)}`, {
      data: { extension: name, limit: 'maxNotificationBytes', limitBytes: maxNotificationBytes, sent: notified },
    });
  }
}
