/**
 * A Transport wrapper that reports every message in both directions to a recorder, for
 * `--transcript`. It does not interpret messages; what to keep or redact is the recorder's
 * business. No `node:` imports: it can wrap any transport on any platform.
 */
import type { MepError } from '../protocol/errors.ts';
import { listenerSet } from './events.ts';
import type { Disposer, JsonRpcMessage, Transport } from './types.ts';

/** Which way a message travelled. */
export type MessageDirection = 'host->extension' | 'extension->host';

/** Receives each message as it passes, before the other side sees it. */
export type MessageRecorder = (direction: MessageDirection, message: JsonRpcMessage) => void;

/** Receives the error a transport closed with (a refused message, a crash); never a clean close. */
export type CloseRecorder = (error: MepError) => void;

/**
 * Wraps `inner` so `record` sees every message sent and received, and `recordClose` the error
 * the transport closes with (which may be a message the transport refused to read). A recorder
 * that throws does not stop the message: reporting its own failures is the recorder's business.
 *
 * @example
 * const transport = createRecordingTransport(await openTransport(spec), (dir, msg) => lines.push({ dir, msg }));
 */
export function createRecordingTransport(inner: Transport, record: MessageRecorder, recordClose?: CloseRecorder): Transport {
  const safeRecord = (direction: MessageDirection, message: JsonRpcMessage) => {
    try {
      record(direction, message);
    } catch {
      // A broken transcript must not break the conversation it records.
    }
  };
  if (recordClose) {
    inner.onClose((error) => {
      try {
        if (error !== undefined) recordClose(error);
      } catch {
        // As above: the recorder reports its own failures.
      }
    });
  }
  // One subscription to `inner`, made on first use, so each message is recorded once however
  // many listeners there are.
  const listeners = listenerSet<(message: JsonRpcMessage) => void>();
  let subscribed = false;
  const wrapped: Transport = {
    get name() {
      return inner.name;
    },
    send(message) {
      safeRecord('host->extension', message);
      inner.send(message);
    },
    onMessage(listener): Disposer {
      const dispose = listeners.add(listener);
      if (!subscribed) {
        subscribed = true;
        inner.onMessage((message) => {
          safeRecord('extension->host', message);
          listeners.emit(message);
        });
      }
      return dispose;
    },
    onClose: (listener) => inner.onClose(listener),
    close: () => inner.close(),
  };
  if (inner.sendRaw) {
    wrapped.sendRaw = (body) => {
      safeRecord('host->extension', { raw: body });
      (inner.sendRaw as (b: string) => void)(body);
    };
  }
  if (inner.cancel) wrapped.cancel = (id) => (inner.cancel as (i: string | number) => void)(id);
  if (inner.pause) wrapped.pause = () => inner.pause?.();
  if (inner.resume) wrapped.resume = () => inner.resume?.();
  return wrapped;
}
