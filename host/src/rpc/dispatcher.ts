/**
 * The receiving half of a peer: routes requests and notifications that arrive from the other
 * side to registered handlers and answers every request exactly once.
 *
 * This is the only place that turns an unknown throw into InternalError (-32603): the wire gets
 * a generic message, the original error goes to `onHandlerError` with its cause.
 */
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import type { Disposer, JsonRpcMessage, Transport } from '../transport/types.ts';
import { errorMessage, resultMessage, type JsonRpcId } from './message.ts';

/** What a request handler learns besides its params. */
export interface RequestContext {
  /** The request id, exactly as the other side sent it. */
  readonly id: JsonRpcId;
  /** The method name the handler was registered for. */
  readonly method: string;
  /** Aborted when the other side sends `$/cancelRequest` for this id or the peer closes. */
  readonly signal: AbortSignal;
}

/**
 * Answers one request. Return a value (sent at once, before the transport's listener returns)
 * or a promise. Throw a MepError with a numeric code to send that error; anything else is sent
 * as -32603 with no internals.
 */
export type RequestHandler = (params: unknown, context: RequestContext) => unknown;

/**
 * Receives one notification's params. Errors thrown here are reported, never sent. A handler
 * that cannot keep up returns a promise (an async handler does): until it settles, the peer holds the other side back
 * (back-pressure; {@link Transport.pause}), so what it is behind on stays bounded. A rejection
 * is reported like a throw.
 */
export type NotificationHandler = (params: unknown, method: string) => unknown;

/** The wiring a dispatcher needs from its peer. */
export interface DispatcherHost {
  /** Peer name for messages. */
  name: string;
  /** Send a response; must not throw (the peer swallows a closed transport). */
  send(message: JsonRpcMessage): void;
  /** Report a handler failure that was turned into a wire error or swallowed. */
  reportHandlerError(error: unknown, method: string): void;
  /** Hold the other side back until `work` (a notification handler's promise) settles. */
  hold(work: PromiseLike<unknown>, method: string): void;
}

/** The receiving half of a peer; see {@link createDispatcher}. */
export interface Dispatcher {
  onRequest(method: string, handler: RequestHandler): Disposer;
  onNotification(method: string, handler: NotificationHandler): Disposer;
  onAnyNotification(handler: NotificationHandler): Disposer;
  handleRequest(id: JsonRpcId, method: string, params: unknown): void;
  handleNotification(method: string, params: unknown): void;
  /** Abort the signal of an incoming request the other side cancelled. */
  cancelIncoming(id: JsonRpcId): void;
  /** Abort every running handler and drop all registrations. */
  dispose(): void;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Create the receiving half of a peer. */
export function createDispatcher(host: DispatcherHost): Dispatcher {
  const requestHandlers = new Map<string, RequestHandler>();
  const notificationHandlers = new Map<string, Set<NotificationHandler>>();
  const anyNotification = new Set<NotificationHandler>();
  const running = new Map<JsonRpcId, AbortController>();

  function answerError(id: JsonRpcId, method: string, error: unknown): void {
    if (isMepError(error) && typeof error.code === 'number') {
      host.send(errorMessage(id, error.toJSON()));
      return;
    }
    host.reportHandlerError(error, method);
    host.send(errorMessage(id, { code: ErrorCode.InternalError, message: `The host failed while handling ${method}.` }));
  }

  return {
    onRequest(method, handler) {
      if (requestHandlers.has(method)) {
        throw new MepError(LocalErrorCode.Usage, `A request handler for ${method} is already registered on ${host.name}; dispose it first.`);
      }
      requestHandlers.set(method, handler);
      return () => {
        if (requestHandlers.get(method) === handler) requestHandlers.delete(method);
      };
    },
    onNotification(method, handler) {
      const set = notificationHandlers.get(method) ?? new Set();
      set.add(handler);
      notificationHandlers.set(method, set);
      return () => void set.delete(handler);
    },
    onAnyNotification(handler) {
      anyNotification.add(handler);
      return () => void anyNotification.delete(handler);
    },
    handleRequest(id, method, params) {
      const handler = requestHandlers.get(method);
      if (handler === undefined) {
        host.send(errorMessage(id, { code: ErrorCode.MethodNotFound, message: `The host does not implement ${method}.` }));
        return;
      }
      if (running.has(id)) {
        // A second request under an id still running would take its place here: the first could
        // no longer be cancelled, nor aborted when the connection closes (a `mep serve` client
        // held session slots to the deadline it chose), and the two answers could not be told apart.
        const refused = new MepError(ErrorCode.InvalidRequest, `Request id ${JSON.stringify(id)} is still running on ${host.name}; this ${method} was not run. Use an id that is not in use until its answer arrives.`, {
          data: { id, reason: 'id-in-use' },
        });
        host.send(errorMessage(id, refused.toJSON()));
        return;
      }
      const controller = new AbortController();
      running.set(id, controller);
      let result: unknown;
      try {
        result = handler(params, { id, method, signal: controller.signal });
      } catch (error) {
        running.delete(id);
        answerError(id, method, error);
        return;
      }
      if (!isThenable(result)) {
        // Synchronous answer, sent before the transport's onMessage listener returns: the wasm
        // transport answers guest->host requests inside one synchronous host call.
        running.delete(id);
        host.send(resultMessage(id, result));
        return;
      }
      result.then(
        (value) => {
          running.delete(id);
          host.send(resultMessage(id, value));
        },
        (error: unknown) => {
          running.delete(id);
          answerError(id, method, error);
        },
      );
    },
    handleNotification(method, params) {
      for (const handler of [...(notificationHandlers.get(method) ?? []), ...anyNotification]) {
        try {
          const work = handler(params, method);
          if (isThenable(work)) host.hold(work, method);
        } catch (error) {
          host.reportHandlerError(error, method);
        }
      }
    },
    cancelIncoming(id) {
      running.get(id)?.abort(new MepError(ErrorCode.RequestCancelled, `${host.name} cancelled its request ${JSON.stringify(id)}.`));
    },
    dispose() {
      for (const controller of running.values()) controller.abort(new MepError(LocalErrorCode.TransportClosed, `The connection to ${host.name} closed.`));
      running.clear();
      requestHandlers.clear();
      notificationHandlers.clear();
      anyNotification.clear();
    },
  };
}
