/**
 * The Transport over one guest runner: queues messages, runs `handle` once per message in order,
 * turns outcomes into responses or a typed failure, routes guest requests and their responses,
 * and cancels queued or running requests. It never interprets a method name; it only looks at
 * the JSON-RPC envelope (`id`, `method`, `result`/`error`).
 */
import { ErrorCode, LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import { createTransportEvents } from '../events.ts';
import type { JsonRpcMessage, LogSink, Transport } from '../types.ts';
import { Interrupt, type RunOutcome } from './engine.ts';
import type { WasmLimits } from './limits.ts';
import type { GuestRunner, RunnerCallbacks } from './runner.ts';

/** A {@link Transport} to a wasm guest; cancellation is always supported. */
export interface WasmTransport extends Transport {
  cancel(id: string | number): void;
}

type Id = string | number;
interface Queued {
  bytes: Uint8Array;
  /** Set for a request (which expects exactly one response), absent otherwise. */
  id?: Id;
}

const encoder = new TextEncoder();

/** Builds the transport around the runner `start` creates with the transport's callbacks. */
export async function createGuestTransport(
  options: { name: string; limits: WasmLimits; log?: LogSink },
  start: (callbacks: RunnerCallbacks) => Promise<GuestRunner>,
): Promise<WasmTransport> {
  const { name, limits, log } = options;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // A failing listener must not crash the guest or the other listeners; report it instead.
  const events = createTransportEvents((error) =>
    log?.({ level: 'error', message: `a listener of wasm extension "${name}" threw: ${String(error)}`, source: name }),
  );
  let queue: Queued[] = [];
  let running: { id?: Id; cancelled: boolean } | null = null;
  let guestRequest: { id: Id; sync: boolean; reply: Uint8Array | null } | null = null;
  let pumping = false;
  let closed = false;
  let closeError: MepError | undefined;
  let closing: Promise<void> | undefined;

  const protocolError = (detail: string, data: Record<string, unknown> = {}, cause?: unknown): MepError =>
    new MepError(LocalErrorCode.Protocol, `Wasm extension "${name}" broke the protocol: ${detail}. Its instance was discarded; report this to the extension's author.`, {
      data: { extension: name, ...data },
      cause,
    });

  const decode = (bytes: Uint8Array, what: string): JsonRpcMessage => {
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(bytes));
    } catch (cause) {
      throw protocolError(`its ${what} is not UTF-8 JSON`, { size: bytes.length }, cause);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw protocolError(`its ${what} is not a JSON-RPC message object`);
    }
    return value as JsonRpcMessage;
  };

  const emit = (message: JsonRpcMessage): void => events.emitMessage(message);

  const emitCancelled = (id: Id): void =>
    emit({ jsonrpc: '2.0', id, error: { code: ErrorCode.RequestCancelled, message: `Request ${JSON.stringify(id)} to wasm extension "${name}" was cancelled.` } });

  const shutdown = (error: MepError | undefined): Promise<void> => {
    if (closing) return closing;
    closed = true;
    closeError = error;
    queue = [];
    runner.interrupt(Interrupt.Close);
    closing = runner.close().catch((cause) => {
      // The instance is being discarded; a failure to release it leaves nothing to recover.
      log?.({ level: 'warn', message: `closing wasm extension "${name}" failed: ${String(cause)}`, source: name });
    });
    events.emitClose(error);
    return closing;
  };
  const fail = (error: MepError): void => void shutdown(error);

  const callbacks: RunnerCallbacks = {
    onNotify(bytes) {
      if (closed) return;
      try {
        emit(decode(bytes, 'notification'));
      } catch (error) {
        fail(error as MepError);
      }
    },
    onRequest(bytes) {
      if (closed) return null;
      let message: JsonRpcMessage;
      try {
        message = decode(bytes, 'request');
      } catch (error) {
        fail(error as MepError);
        return null;
      }
      const id = message.id;
      if (typeof id !== 'string' && typeof id !== 'number') {
        emit(message);
        return null;
      }
      const pending = { id, sync: true, reply: null as Uint8Array | null };
      guestRequest = pending;
      emit(message);
      if (pending.reply !== null || !runner.canWaitForReply) {
        guestRequest = null;
        return pending.reply;
      }
      pending.sync = false;
      return null;
    },
    onLog(level, message) {
      log?.({ level, message, source: name });
    },
    onDead: fail,
  };

  const settle = (item: Queued, outcome: RunOutcome, cancelled: boolean): void => {
    const timedOut = outcome.interrupt === Interrupt.Deadline || outcome.elapsedMs > limits.callTimeoutMs;
    if (timedOut && !(cancelled && outcome.ok)) {
      fail(new MepError(LocalErrorCode.Timeout, `Wasm extension "${name}" did not finish ${item.id === undefined ? 'a notification' : `request ${JSON.stringify(item.id)}`} within ${limits.callTimeoutMs} ms and was stopped. ${raiseAdvice('callTimeoutMs', limits.callTimeoutMs)}`, {
        data: { extension: name, id: item.id, timeoutMs: limits.callTimeoutMs, limit: 'callTimeoutMs' },
      }));
      return;
    }
    if (!outcome.ok) {
      const error = new MepError(outcome.error.code, outcome.error.message, { data: outcome.error.data });
      if (outcome.guestError) {
        // The guest reported the failure itself (error_set): its instance is sound, answer and go on.
        if (item.id === undefined) log?.({ level: 'error', message: error.message, source: name });
        else if (cancelled) emitCancelled(item.id);
        else emit({ jsonrpc: '2.0', id: item.id, error: error.toJSON() });
        return;
      }
      if (cancelled && item.id !== undefined) emitCancelled(item.id);
      fail(error);
      return;
    }
    if (item.id === undefined) {
      if (outcome.output !== null) fail(protocolError('it answered a message that was not a request', { size: outcome.output.length }));
      return;
    }
    let response: JsonRpcMessage;
    try {
      if (outcome.output === null) throw protocolError(`it returned no response to request ${JSON.stringify(item.id)}`, { id: item.id });
      response = decode(outcome.output, 'response');
      if ('method' in response || !('result' in response || 'error' in response)) {
        throw protocolError(`its answer to request ${JSON.stringify(item.id)} is not a response`, { id: item.id });
      }
      if (response.id !== item.id) {
        throw protocolError(`it answered request ${JSON.stringify(item.id)} with id ${JSON.stringify(response.id)}`, { id: item.id, responseId: response.id });
      }
    } catch (error) {
      // A cancelled guest may stop without a proper answer; the host answers for it.
      if (cancelled) emitCancelled(item.id);
      else fail(error as MepError);
      return;
    }
    emit(response);
  };

  const pump = async (): Promise<void> => {
    while (!closed && queue.length > 0) {
      const item = queue.shift() as Queued;
      const current = { id: item.id, cancelled: false };
      running = current;
      const outcome = await runner.run(item.bytes, limits.callTimeoutMs);
      running = null;
      guestRequest = null;
      if (!closed) settle(item, outcome, current.cancelled);
    }
    pumping = false;
  };

  const runner = await start(callbacks);

  return {
    name,
    send(message) {
      if (closed) {
        throw new MepError(LocalErrorCode.TransportClosed, `The transport to wasm extension "${name}" is closed: start a new session.`, {
          data: { extension: name },
          cause: closeError,
        });
      }
      const bytes = encoder.encode(JSON.stringify(message));
      if (bytes.length > limits.maxRequestBytes) {
        throw new MepError(LocalErrorCode.Limit, `A message of ${bytes.length} bytes for wasm extension "${name}" exceeds its message size limit of ${limits.maxRequestBytes}; nothing was sent. ${raiseAdvice('maxRequestBytes', limits.maxRequestBytes)}`, {
          data: { extension: name, limit: 'maxRequestBytes', size: bytes.length },
        });
      }
      const id = message.id;
      const isResponse = !('method' in message) && ('result' in message || 'error' in message);
      if (isResponse && guestRequest !== null && id === guestRequest.id) {
        if (guestRequest.sync) guestRequest.reply = bytes;
        else {
          guestRequest = null;
          runner.reply(bytes);
        }
        return;
      }
      const isRequest = typeof message.method === 'string' && (typeof id === 'string' || typeof id === 'number');
      queue.push(isRequest ? { bytes, id: id as Id } : { bytes });
      if (!pumping) {
        pumping = true;
        // Start on a microtask so no guest code (and no listener) runs inside send().
        queueMicrotask(() => void pump());
      }
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    cancel(id) {
      if (closed) return;
      const index = queue.findIndex((item) => item.id === id);
      if (index >= 0) {
        queue.splice(index, 1);
        queueMicrotask(() => {
          if (!closed) emitCancelled(id);
        });
      } else if (running !== null && running.id === id) {
        running.cancelled = true;
        runner.interrupt(Interrupt.Cancel);
      }
    },
    close: () => shutdown(undefined),
  };
}
