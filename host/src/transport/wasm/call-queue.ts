/**
 * The guest transport's message queue and pump: messages run one at a time in arrival order,
 * starting on a microtask so no guest code runs inside `send()`; a queued request can be
 * cancelled before it runs, a running one is interrupted and settled as cancelled. The bytes
 * queued and not started are counted, so the transport can refuse a request past its bound
 * (HOST_BOUNDS.maxQueuedRequestBytes) instead of holding whatever a caller pipelines.
 */
import { Interrupt, type RunOutcome } from './engine.ts';
import type { Id } from './guest-messages.ts';
import type { GuestRunner } from './runner.ts';

/** What the queue needs from its transport. */
export interface CallQueueContext {
  callTimeoutMs: number;
  runner(): GuestRunner;
  isClosed(): boolean;
  /** Settles a finished call (not called once the transport closed). */
  settle(id: Id | undefined, outcome: RunOutcome, cancelled: boolean): void | Promise<void>;
  /** Called after each call, before it is settled. */
  ended(): void;
  /** Tells a request's sender that it was cancelled before it ran (on a microtask). */
  cancelledQueued(id: Id): void;
}

/** The queue of one transport. */
export interface CallQueue {
  /** Queues encoded message `bytes`; `id` is set for a request (it expects one response). */
  push(bytes: Uint8Array, id?: Id): void;
  /** Cancels request `id`, queued or running; unknown ids are ignored. */
  cancel(id: Id): void;
  /** Drops everything not yet started. */
  clear(): void;
  /** The id of the request that runs now (undefined between calls, or for a notification). */
  runningId(): Id | undefined;
  /** Bytes of the messages queued and not started yet (the running one aside). */
  readonly queuedBytes: number;
}

interface Queued {
  bytes: Uint8Array;
  id?: Id;
}

/** Creates the queue of one transport. */
export function createCallQueue(context: CallQueueContext): CallQueue {
  let queue: Queued[] = [];
  let queuedBytes = 0;
  let running: { id?: Id; cancelled: boolean } | null = null;
  let pumping = false;

  const pump = async (): Promise<void> => {
    while (!context.isClosed() && queue.length > 0) {
      const item = queue.shift() as Queued;
      queuedBytes -= item.bytes.length;
      const current = { id: item.id, cancelled: false };
      running = current;
      const outcome = await context.runner().run(item.bytes, context.callTimeoutMs);
      running = null;
      context.ended();
      // A large answer is settled before the next call runs, so answers keep their order.
      if (!context.isClosed()) {
        const settling = context.settle(item.id, outcome, current.cancelled);
        if (settling) await settling;
      }
    }
    pumping = false;
    if (!context.isClosed()) context.runner().idle?.();
  };

  return {
    push(bytes, id) {
      queue.push(id === undefined ? { bytes } : { bytes, id });
      queuedBytes += bytes.length;
      if (!pumping) {
        pumping = true;
        queueMicrotask(() => void pump());
      }
    },
    cancel(id) {
      const index = queue.findIndex((item) => item.id === id);
      if (index >= 0) {
        const [removed] = queue.splice(index, 1);
        queuedBytes -= (removed as Queued).bytes.length;
        queueMicrotask(() => {
          if (!context.isClosed()) context.cancelledQueued(id);
        });
      } else if (running !== null && running.id === id) {
        running.cancelled = true;
        context.runner().interrupt(Interrupt.Cancel);
      }
    },
    clear() {
      queue = [];
      queuedBytes = 0;
    },
    runningId: () => running?.id,
    get queuedBytes() {
      return queuedBytes;
    },
  };
}
