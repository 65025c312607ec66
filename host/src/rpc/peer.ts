/**
 * A JSON-RPC 2.0 peer over any {@link Transport}: ids, the pending map, dispatch of incoming
 * requests and notifications, `$/cancelRequest`, timeouts, and rejection of everything pending
 * when the transport dies. It knows no MEP method; sessions build on it.
 */
import { ErrorCode, LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { Disposer, JsonRpcMessage, Transport } from '../transport/types.ts';
import { createDispatcher, type NotificationHandler, type RequestHandler } from './dispatcher.ts';
import { notificationMessage, parseMessage, requestMessage, type IncomingMessage, type JsonRpcId } from './message.ts';
import { createPending, type PendingRequests } from './pending.ts';

/** The cancellation notification of JSON-RPC as used by LSP and MEP 0.1. */
export const CANCEL_REQUEST_METHOD = '$/cancelRequest';

/** Default per-request deadline, the reference host's 30 s per call. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Options for {@link createPeer}. */
export interface PeerOptions {
  /** Name used in error messages; defaults to the transport's name. */
  name?: string;
  /** Default deadline per request in ms; 0 or Infinity disables it. Default 30 000. */
  timeoutMs?: number;
}

/** Options for one {@link Peer.request}. */
export interface RequestOptions {
  /** Deadline for this request in ms (0 or Infinity: none); overrides the peer default. */
  timeoutMs?: number;
  /** Aborting sends `$/cancelRequest` and rejects at once with MepError(-32800). */
  signal?: AbortSignal;
  /** An explicit id (string or integer); refused while the same id is active. */
  id?: JsonRpcId;
}

/** A JSON-RPC 2.0 connection to one extension. */
export interface Peer {
  /** The name errors use (the extension). */
  readonly name: string;
  /** True once the transport closed or {@link Peer.close} was called. */
  readonly closed: boolean;
  /** Send a request and resolve with its result; error responses reject with MepError(code, message, { data }). */
  request(method: string, params?: unknown, options?: RequestOptions): Promise<unknown>;
  /** Send a notification. Throws MepError(ERR_TRANSPORT_CLOSED) once closed. */
  notify(method: string, params?: unknown): void;
  /** Handle requests for `method` from the other side; unknown methods are answered -32601. */
  onRequest(method: string, handler: RequestHandler): Disposer;
  /**
   * Listen to notifications for `method` (e.g. progress). A handler that returns a promise holds
   * the extension back until it settles (see {@link NotificationHandler}).
   */
  onNotification(method: string, handler: NotificationHandler): Disposer;
  /** Listen to every notification except `$/cancelRequest`. */
  onAnyNotification(handler: NotificationHandler): Disposer;
  /**
   * Responses with unknown ids and malformed envelopes, as MepError(ERR_PROTOCOL) plus the raw
   * message; never thrown.
   */
  onProtocolError(listener: (error: MepError, message: JsonRpcMessage) => void): Disposer;
  /** Errors thrown by local handlers (sent to the other side as -32603 without internals). */
  onHandlerError(listener: (error: unknown, method: string) => void): Disposer;
  /** Called once when the connection ends; `error` is the transport's reason, if any. */
  onClose(listener: (error?: MepError) => void): Disposer;
  /**
   * Resolves once every request given up on (cancelled, timed out) has had its late answer from
   * the other side, or the connection ended: how a host waits for a cancelled call to stop.
   */
  abandonedAnswered(): Promise<void>;
  /** Requests given up on whose late answer has not come yet: the other side may still be running them. */
  readonly abandoned: number;
  /** Reject everything pending with ERR_TRANSPORT_CLOSED and close the transport. */
  close(): Promise<void>;
}

function listeners<T extends unknown[]>() {
  const set = new Set<(...args: T) => void>();
  return {
    add(listener: (...args: T) => void): Disposer {
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(...args: T): void {
      for (const listener of [...set]) listener(...args);
    },
    get size() {
      return set.size;
    },
  };
}

/**
 * Create a peer over a transport. The peer owns the transport: `close()` closes it.
 *
 * @example
 * const peer = createPeer(transport, { timeoutMs: 10_000 });
 * try { await peer.request('morphir.ping', {}) } finally { await peer.close() }
 */
export function createPeer(transport: Transport, options: PeerOptions = {}): Peer {
  const name = options.name ?? transport.name;
  const defaultTimeout = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const protocolErrors = listeners<[MepError, JsonRpcMessage]>();
  const handlerErrors = listeners<[unknown, string]>();
  const closeListeners = listeners<[MepError | undefined]>();
  let closed = false;
  let closeReason: MepError | undefined;

  const send = transport.send.bind(transport);
  function sendQuietly(message: JsonRpcMessage): void {
    try {
      send(message);
    } catch {
      // Safe to drop: the transport is closed, so nobody is left to read this message.
    }
  }

  function reportProtocol(problem: string, message: JsonRpcMessage, data: Record<string, unknown> = {}): void {
    const error = new MepError(LocalErrorCode.Protocol, `${name} sent ${problem}.`, { data: { extension: name, message, ...data } });
    protocolErrors.emit(error, message);
  }

  // Back-pressure: while any notification handler's promise is unsettled, the transport holds
  // the extension back. Counted, so overlapping holds pause once and resume once.
  let holds = 0;
  const flow = (call: () => void): void => {
    try {
      call();
    } catch (error) {
      handlerErrors.emit(error, 'flow control');
    }
  };
  function hold(work: PromiseLike<unknown>, method: string): void {
    if (closed) return;
    if (holds++ === 0 && transport.pause) flow(() => transport.pause?.());
    const release = (): void => {
      if (--holds === 0 && !closed && transport.resume) flow(() => transport.resume?.());
    };
    work.then(release, (error: unknown) => {
      handlerErrors.emit(error, method);
      release();
    });
  }

  const dispatcher = createDispatcher({
    name,
    send: sendQuietly,
    reportHandlerError: (error, method) => handlerErrors.emit(error, method),
    hold,
  });

  const pending: PendingRequests = createPending({
    name,
    abandon(id) {
      // MEP 0.1, Cancellation: the LSP notification, plus the transport's out-of-band cancel.
      sendQuietly(notificationMessage(CANCEL_REQUEST_METHOD, { id }));
      try {
        transport.cancel?.(id);
      } catch (error) {
        handlerErrors.emit(error, CANCEL_REQUEST_METHOD);
      }
    },
  });

  function receive(raw: JsonRpcMessage): void {
    const message: IncomingMessage = parseMessage(raw);
    switch (message.kind) {
      case 'request':
        dispatcher.handleRequest(message.id, message.method, message.params);
        return;
      case 'notification':
        if (message.method === CANCEL_REQUEST_METHOD) {
          const id = (message.params as { id?: unknown } | undefined)?.id;
          if (typeof id === 'string' || typeof id === 'number') dispatcher.cancelIncoming(id);
          return;
        }
        dispatcher.handleNotification(message.method, message.params);
        return;
      case 'result':
      case 'error': {
        if (message.id === null) {
          reportProtocol('an error response with id null (it could not read a message)', raw);
          return;
        }
        const outcome = message.kind === 'result' ? pending.resolve(message.id, message.result) : pending.rejectWire(message.id, message.error);
        if (outcome === 'unknown') reportProtocol(`a response for unknown id ${JSON.stringify(message.id)}`, raw, { id: message.id });
        return;
      }
      case 'invalid':
        if (message.looksLike === 'request') {
          sendQuietly({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidRequest, message: `Invalid request: ${message.reason}.` } });
        } else if (message.looksLike === 'response' && message.id !== null) {
          pending.rejectLocal(message.id, new MepError(LocalErrorCode.Protocol, `${name} sent a malformed response (${message.reason}).`, { data: { message: raw } }));
        }
        reportProtocol(`a malformed message (${message.reason})`, raw, { issues: message.issues });
    }
  }

  function shutdown(reason: MepError | undefined): void {
    if (closed) return;
    closed = true;
    closeReason = reason;
    pending.rejectAll((method) => reason ?? new MepError(LocalErrorCode.TransportClosed, `The connection to ${name} closed while ${method} was pending.`));
    dispatcher.dispose();
    disposeMessage();
    disposeClose();
    closeListeners.emit(reason);
  }

  let disposeMessage: Disposer = () => {};
  let disposeClose: Disposer = () => {};
  disposeMessage = transport.onMessage(receive);
  disposeClose = transport.onClose((error) => shutdown(error));
  if (closed) {
    disposeMessage();
    disposeClose();
  }

  return {
    name,
    get closed() {
      return closed;
    },
    request(method, params, requestOptions = {}) {
      if (closed) {
        return Promise.reject(new MepError(LocalErrorCode.TransportClosed, `Cannot send ${method}: the connection to ${name} is closed.`, { cause: closeReason }));
      }
      return pending.start(method, requestOptions.timeoutMs ?? defaultTimeout, requestOptions, (id) => send(requestMessage(id, method, params)));
    },
    notify(method, params) {
      if (closed) throw new MepError(LocalErrorCode.TransportClosed, `Cannot send ${method}: the connection to ${name} is closed.`, { cause: closeReason });
      send(notificationMessage(method, params));
    },
    onRequest: (method, handler) => dispatcher.onRequest(method, handler),
    onNotification: (method, handler) => dispatcher.onNotification(method, handler),
    onAnyNotification: (handler) => dispatcher.onAnyNotification(handler),
    onProtocolError: (listener) => protocolErrors.add(listener),
    onHandlerError: (listener) => handlerErrors.add(listener),
    onClose: (listener) => closeListeners.add(listener),
    abandonedAnswered: () => pending.abandonedAnswered(),
    get abandoned() {
      return pending.abandoned;
    },
    async close() {
      shutdown(undefined);
      await transport.close();
    },
  };
}
