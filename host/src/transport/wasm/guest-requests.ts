/**
 * Routing what a guest sends during a call: its notifications go to the transport's listeners;
 * its requests (e.g. `secret.resolve`) too, and the host's response finds its way back — as the
 * synchronous return of the host function when a listener answered at once, or through
 * `runner.reply` to a worker guest that is still waiting.
 *
 * A call's notifications and requests count against its budget (`maxNotificationBytes`), all but the
 * artifacts it streams for the running request (morphir.backend.artifact with that request's
 * id), which are its result's data, bounded as a result is (per message, and by the artifact
 * count): logs and progress are what a flood is made of. Past the budget the transport fails
 * with ERR_LIMIT before the notification is delivered, and `onNotify` throws, which stops an
 * inline guest inside its host call.
 *
 * Back-pressure: while the host's receiver is behind (the transport was paused), a worker's
 * guest is held back by its flow window. An inline guest cannot be: it runs on the host's own
 * thread, whose writes cannot even progress before the call returns. So its own artifacts count
 * against the budget too while the receiver is behind, and such a stream ends, bounded, with
 * ERR_LIMIT naming worker isolation and the budget.
 *
 * A worker's guest sends its messages through the event loop: one of 1 MiB and more
 * (`SLICED_FROM_CHARS`) is parsed in slices (`onNotifySliced`, `onRequestSliced`), the worker's
 * later messages and its result held until it is delivered (worker-runner.ts). An inline guest's
 * are parsed whole, inside its host call: the guest holds the thread for as long anyway.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import { Method } from '../../protocol/methods.ts';
import type { JsonRpcMessage } from '../types.ts';
import type { GuestMessages, Id } from './guest-messages.ts';
import type { GuestRunner, RunnerCallbacks } from './runner.ts';

/** What the router needs from its transport. */
export interface GuestRequestContext {
  messages: GuestMessages;
  emit(message: JsonRpcMessage): void;
  fail(error: MepError): void;
  isClosed(): boolean;
  /** The runner; only read once a call runs, after it was created. */
  runner(): GuestRunner;
  /** The extension's name, its per-call notification budget, and the running request's id. */
  budget: { name: string; maxNotificationBytes: number; runningId(): Id | undefined };
}

/** The router of one transport. */
export interface GuestRequestRouter {
  /** The runner callbacks for the guest's notifications and requests. */
  readonly callbacks: Pick<RunnerCallbacks, 'onNotify' | 'onArtifact' | 'onRequest' | 'onNotifySliced' | 'onRequestSliced'>;
  /** Takes a host message when it answers the guest request that waits; false otherwise. */
  answer(message: JsonRpcMessage, bytes: Uint8Array): boolean;
  /** Forgets the waiting guest request and starts a new budget (its call ended). */
  clear(): void;
  /** The host's receiver is behind (true) or caught up: holds the guest back where the runner can. */
  holdBack(held: boolean): void;
}

/** True for an artifact the running request `id` streams: result data, not chatter. */
function isOwnArtifact(message: JsonRpcMessage, id: Id | undefined): boolean {
  return id !== undefined && message.method === Method.BackendArtifact && (message.params as { requestId?: unknown } | undefined)?.requestId === id;
}

/** Creates the router of one transport. */
export function createGuestRequestRouter(context: GuestRequestContext): GuestRequestRouter {
  const { messages, emit, fail, isClosed } = context;
  const { budget } = context;
  let waiting: { id: Id; sync: boolean; reply: Uint8Array | null } | null = null;
  /** Notification bytes of the running call charged so far. */
  let notified = 0;
  /** True while the receiver is behind and the runner could not hold the guest back (inline). */
  let unheld = false;
  /**
   * Charges `size` bytes of what the guest sent against the call's budget: past it the transport
   * fails and this throws (which stops an inline guest inside its host call).
   */
  function charge(size: number, kind: 'artifacts' | 'notifications' | 'requests'): void {
    notified += size;
    if (notified <= budget.maxNotificationBytes) return;
    const what =
      kind === 'artifacts'
        ? `streamed artifacts faster than the host could write them, more than its budget of ${budget.maxNotificationBytes} bytes held in one call; inline isolation cannot hold a guest back, so the call was stopped. Run it with worker isolation (the default of mep), or ${raiseAdvice('maxNotificationBytes', budget.maxNotificationBytes).replace(/^R/, 'r')}`
        : `sent more than its budget of ${budget.maxNotificationBytes} bytes of notifications in one call (the last were ${kind === 'requests' ? 'requests to the host' : 'notifications'}); the call was stopped. ${raiseAdvice('maxNotificationBytes', budget.maxNotificationBytes)}`;
    const error = new MepError(LocalErrorCode.Limit, `Wasm extension "${budget.name}" ${what}`, {
      data: { extension: budget.name, limit: 'maxNotificationBytes', limitBytes: budget.maxNotificationBytes, sent: notified, ...(kind === 'artifacts' ? { isolation: 'inline' } : {}) },
    });
    fail(error);
    throw error;
  }
  /** Charges a notification against the call's budget (throws past it, after failing the transport), then emits it. */
  function deliverNotification(message: JsonRpcMessage, size: number): void {
    const artifact = isOwnArtifact(message, budget.runningId());
    if (unheld || !artifact) charge(size, artifact ? 'artifacts' : 'notifications');
    emit(message);
  }
  /** Emits a guest request; the response's bytes when a listener answered at once, else null (it waits, or cannot). */
  function deliverRequest(message: JsonRpcMessage): Uint8Array | null {
    const id = message.id;
    if (typeof id !== 'string' && typeof id !== 'number') {
      emit(message);
      return null;
    }
    const pending = { id, sync: true, reply: null as Uint8Array | null };
    waiting = pending;
    emit(message);
    if (pending.reply !== null || !context.runner().canWaitForReply) {
      waiting = null;
      return pending.reply;
    }
    pending.sync = false;
    return null;
  }
  /** `bytes` decoded (in slices when `sliced`), or undefined once the transport failed or closed. */
  async function decodeLarge(bytes: Uint8Array, what: string): Promise<JsonRpcMessage | undefined> {
    let message: JsonRpcMessage;
    try {
      message = await messages.decodeSliced(bytes, what);
    } catch (error) {
      if (!isClosed()) fail(error as MepError);
      return undefined;
    }
    return isClosed() ? undefined : message;
  }
  return {
    callbacks: {
      onNotify(bytes) {
        if (isClosed()) return;
        let message: JsonRpcMessage;
        try {
          message = messages.decode(bytes, 'notification');
        } catch (error) {
          fail(error as MepError);
          return;
        }
        deliverNotification(message, bytes.length);
      },
      onArtifact(bytes, envelopeBytes) {
        if (isClosed()) return;
        let message: JsonRpcMessage;
        try {
          message = messages.artifact(bytes, envelopeBytes);
        } catch (error) {
          fail(error as MepError);
          return;
        }
        deliverNotification(message, bytes.length);
      },
      onRequest(bytes) {
        if (isClosed()) return null;
        // A request counts as a notification, before it is decoded: one at a time, each answered
        // at once, a guest made the host decode 2 GB in one call.
        charge(bytes.length, 'requests');
        let message: JsonRpcMessage;
        try {
          message = messages.decode(bytes, 'request');
        } catch (error) {
          fail(error as MepError);
          return null;
        }
        return deliverRequest(message);
      },
      async onNotifySliced(bytes) {
        if (isClosed()) return;
        const message = await decodeLarge(bytes, 'notification');
        if (message !== undefined) deliverNotification(message, bytes.length);
      },
      async onRequestSliced(bytes) {
        if (isClosed()) return null;
        charge(bytes.length, 'requests');
        const message = await decodeLarge(bytes, 'request');
        return message === undefined ? null : deliverRequest(message);
      },
    },
    answer(message, bytes) {
      const isResponse = !('method' in message) && ('result' in message || 'error' in message);
      if (!isResponse || waiting === null || message.id !== waiting.id) return false;
      if (waiting.sync) waiting.reply = bytes;
      else {
        waiting = null;
        context.runner().reply(bytes);
      }
      return true;
    },
    clear() {
      waiting = null;
      notified = 0;
    },
    holdBack(held) {
      unheld = !context.runner().holdBack(held) && held;
    },
  };
}
