/**
 * The two event streams every Transport has — messages in arrival order, and one close — with
 * the same rules everywhere: listeners run synchronously in subscription order, a throwing
 * listener never stops the others, the close happens once, and a close listener added after the
 * close is still told (on a microtask). Below them, {@link listenerSet}: the listener bookkeeping
 * the transports and the server's channels share.
 */
import type { MepError } from '../protocol/errors.ts';
import type { Disposer, JsonRpcMessage } from './types.ts';

/** Listeners of one event: {@link listenerSet}. */
export interface ListenerSet<L extends (...args: never[]) => unknown> {
  /** Adds a listener; the returned disposer removes it. */
  add(listener: L): Disposer;
  /** Calls every listener with `args`, in the order added, from a snapshot: one added or removed meanwhile does not change this round. */
  emit(...args: Parameters<L>): void;
  /** Hands every listener to `call` (a snapshot, as {@link emit}): for callers that guard each call. */
  each(call: (listener: L) => void): void;
  readonly size: number;
  clear(): void;
}

/**
 * A set of listeners of one event.
 *
 * @example
 * const ended = listenerSet<(error?: Error) => void>();
 * const dispose = ended.add((error) => log(error));
 * ended.emit(new Error('gone'));
 */
export function listenerSet<L extends (...args: never[]) => unknown>(): ListenerSet<L> {
  const listeners = new Set<L>();
  const each = (call: (listener: L) => void): void => {
    for (const listener of [...listeners]) call(listener);
  };
  return {
    add(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit: (...args) => each((listener) => listener(...args)),
    each,
    get size() {
      return listeners.size;
    },
    clear: () => listeners.clear(),
  };
}

/** Listener bookkeeping shared by the transports. */
export interface TransportEvents {
  onMessage(listener: (message: JsonRpcMessage) => void): Disposer;
  onClose(listener: (error?: MepError) => void): Disposer;
  /** Deliver one message to every message listener (nothing once closed). */
  emitMessage(message: JsonRpcMessage): void;
  /** Close once: tell every close listener, then drop all listeners. False if already closed. */
  emitClose(error?: MepError): boolean;
  readonly closed: boolean;
  /** Why the transport closed, when it was not a requested close. */
  readonly closeError: MepError | undefined;
}

/**
 * Creates the events of one transport. `onListenerError` hears about listeners that threw;
 * without it such an error is rethrown on a microtask so it is never lost.
 */
export function createTransportEvents(onListenerError?: (error: unknown) => void): TransportEvents {
  const messageListeners = listenerSet<(message: JsonRpcMessage) => void>();
  const closeListeners = listenerSet<(error?: MepError) => void>();
  let closed = false;
  let closeError: MepError | undefined;
  const report = (error: unknown) => {
    if (onListenerError) onListenerError(error);
    else
      queueMicrotask(() => {
        throw error;
      });
  };
  return {
    onMessage: (listener) => messageListeners.add(listener),
    onClose(listener) {
      if (closed) {
        queueMicrotask(() => listener(closeError));
        return () => undefined;
      }
      return closeListeners.add(listener);
    },
    emitMessage(message) {
      if (closed) return;
      messageListeners.each((listener) => {
        try {
          listener(message);
        } catch (error) {
          report(error);
        }
      });
    },
    emitClose(error) {
      if (closed) return false;
      closed = true;
      closeError = error;
      closeListeners.each((listener) => {
        try {
          listener(error);
        } catch (thrown) {
          report(thrown);
        }
      });
      closeListeners.clear();
      messageListeners.clear();
      return true;
    },
    get closed() {
      return closed;
    },
    get closeError() {
      return closeError;
    },
  };
}
