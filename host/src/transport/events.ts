/**
 * The two event streams every Transport has — messages in arrival order, and one close — with
 * the same rules everywhere: listeners run synchronously in subscription order, a throwing
 * listener never stops the others, the close happens once, and a close listener added after the
 * close is still told (on a microtask).
 */
import type { MepError } from '../protocol/errors.ts';
import type { Disposer, JsonRpcMessage } from './types.ts';

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
  const messageListeners = new Set<(message: JsonRpcMessage) => void>();
  const closeListeners = new Set<(error?: MepError) => void>();
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
    onMessage(listener) {
      messageListeners.add(listener);
      return () => void messageListeners.delete(listener);
    },
    onClose(listener) {
      if (closed) {
        queueMicrotask(() => listener(closeError));
        return () => undefined;
      }
      closeListeners.add(listener);
      return () => void closeListeners.delete(listener);
    },
    emitMessage(message) {
      if (closed) return;
      for (const listener of [...messageListeners]) {
        try {
          listener(message);
        } catch (error) {
          report(error);
        }
      }
    },
    emitClose(error) {
      if (closed) return false;
      closed = true;
      closeError = error;
      for (const listener of [...closeListeners]) {
        try {
          listener(error);
        } catch (thrown) {
          report(thrown);
        }
      }
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
