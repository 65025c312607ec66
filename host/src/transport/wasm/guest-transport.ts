/**
 * The Transport over one guest runner, assembled from its phases: the call queue and pump
 * (call-queue.ts), settling outcomes (settle-outcome.ts), guest-request routing
 * (guest-requests.ts) and close (guest-shutdown.ts). It looks at the JSON-RPC envelope (`id`,
 * `method`, `result`/`error`) and interprets one method name only: `$/cancelRequest`, which
 * interrupts the call it names instead of waiting behind it.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { HOST_BOUNDS, raiseAdvice } from '../../protocol/limits.ts';
import { encodeMessage } from '../../framing/json-text.ts';
import { createTransportEvents } from '../events.ts';
import { Method } from '../../protocol/methods.ts';
import type { JsonRpcMessage, LogSink, Transport } from '../types.ts';
import { createCallQueue } from './call-queue.ts';
import { createGuestMessages, type Id } from './guest-messages.ts';
import { createGuestRequestRouter } from './guest-requests.ts';
import { createGuestShutdown } from './guest-shutdown.ts';
import type { WasmLimits } from './limits.ts';
import type { GuestRunner, RunnerCallbacks } from './runner.ts';
import { createOutcomeSettler } from './settle-outcome.ts';

/** A {@link Transport} to a wasm guest; cancellation is always supported. */
export interface WasmTransport extends Transport {
  cancel(id: string | number): void;
}

/**
 * The id a `$/cancelRequest` notification names (null when it names none a request can have:
 * nothing to cancel); undefined for any other message. The one method name the transport reads.
 */
function cancelledId(message: JsonRpcMessage): Id | null | undefined {
  if (message.method !== Method.CancelRequest || 'id' in message) return undefined;
  const id = (message.params as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Builds the transport around the runner `start` creates with the transport's callbacks. */
export async function createGuestTransport(
  options: { name: string; limits: WasmLimits; log?: LogSink },
  start: (callbacks: RunnerCallbacks) => Promise<GuestRunner>,
): Promise<WasmTransport> {
  const { name, limits, log } = options;
  // A failing listener must not crash the guest or the other listeners; report it instead.
  const events = createTransportEvents((error) =>
    log?.({ level: 'error', message: `a listener of wasm extension "${name}" threw: ${String(error)}`, source: name }),
  );
  let runner: GuestRunner | undefined;
  const getRunner = (): GuestRunner => runner as GuestRunner;
  const messages = createGuestMessages(name);
  const emit = events.emitMessage;
  const isClosed = (): boolean => shutdown.closed;
  const fail = (error: MepError): void => void shutdown.close(error);

  const requests = createGuestRequestRouter({
    messages,
    emit,
    fail,
    isClosed,
    runner: getRunner,
    budget: { name, maxNotificationBytes: limits.maxNotificationBytes, runningId: () => queue.runningId() },
  });
  const queue = createCallQueue({
    callTimeoutMs: limits.callTimeoutMs,
    runner: getRunner,
    isClosed,
    settle: createOutcomeSettler({ name, limits, log, messages, emit, fail }),
    ended: requests.clear,
    cancelledQueued: (id) => emit(messages.cancelled(id)),
  });
  const shutdown = createGuestShutdown({ name, log, events, runner: getRunner, clearQueue: queue.clear });

  runner = await start({
    ...requests.callbacks,
    onLog: (level, message) => log?.({ level, message, source: name }),
    onDead: fail,
  });

  return {
    name,
    send(message) {
      if (shutdown.closed) {
        throw new MepError(LocalErrorCode.TransportClosed, `The transport to wasm extension "${name}" is closed: start a new session.`, {
          data: { extension: name },
          cause: shutdown.error,
        });
      }
      const bytes = encodeMessage(message);
      if (bytes.length > limits.maxRequestBytes) {
        throw new MepError(LocalErrorCode.Limit, `A message of ${bytes.length} bytes for wasm extension "${name}" exceeds its message size limit of ${limits.maxRequestBytes}; nothing was sent. ${raiseAdvice('maxRequestBytes', limits.maxRequestBytes, bytes.length)}`, {
          data: { extension: name, limit: 'maxRequestBytes', size: bytes.length },
        });
      }
      if (requests.answer(message, bytes)) return;
      // MEP 0.1, Cancellation: `$/cancelRequest` acts now, out of band, as `cancel(id)`. Queued
      // behind the call it names, it would reach the guest only once that call had finished: a
      // client that cancels through the wire alone (any JSON-RPC client) would never be heard.
      const cancelled = cancelledId(message);
      if (cancelled !== undefined) {
        if (cancelled !== null) queue.cancel(cancelled);
        return;
      }
      const id = message.id;
      const isRequest = typeof message.method === 'string' && (typeof id === 'string' || typeof id === 'number');
      // Behind a running call, what a caller pipelines waits here encoded: past the bound a new
      // request is refused unsent (the caller's alone; the session goes on), as a process
      // extension's is past its stdin backlog. Notifications (`morphir.initialized`) still queue.
      const queued = queue.queuedBytes;
      if (isRequest && queued > HOST_BOUNDS.maxQueuedRequestBytes) {
        throw new MepError(
          LocalErrorCode.Limit,
          `Wasm extension "${name}" has ${queued} bytes of requests queued behind its running call (over the ${HOST_BOUNDS.maxQueuedRequestBytes} bytes the host holds for a guest); this ${String(message.method)} was not sent. Send the next request once earlier ones are answered.`,
          { data: { extension: name, limit: 'maxQueuedRequestBytes', limitBytes: HOST_BOUNDS.maxQueuedRequestBytes, queued, sent: false } },
        );
      }
      queue.push(bytes, isRequest ? (id as Id) : undefined);
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    cancel(id) {
      if (!shutdown.closed) queue.cancel(id);
    },
    pause() {
      if (!shutdown.closed) requests.holdBack(true);
    },
    resume() {
      if (!shutdown.closed) requests.holdBack(false);
    },
    close: () => shutdown.close(),
  };
}
