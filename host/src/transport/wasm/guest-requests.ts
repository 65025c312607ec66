/**
 * Routing what a guest sends during a call: its notifications go to the transport's listeners;
 * its requests (e.g. `secret.resolve`) too, and the host's response finds its way back — as the
 * synchronous return of the host function when a listener answered at once, or through
 * `runner.reply` to a worker guest that is still waiting.
 */
import type { MepError } from '../../protocol/errors.ts';
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
}

/** The router of one transport. */
export interface GuestRequestRouter {
  /** The runner callbacks for the guest's notifications and requests. */
  readonly callbacks: Pick<RunnerCallbacks, 'onNotify' | 'onRequest'>;
  /** Takes a host message when it answers the guest request that waits; false otherwise. */
  answer(message: JsonRpcMessage, bytes: Uint8Array): boolean;
  /** Forgets the waiting guest request (its call ended). */
  clear(): void;
}

/** Creates the router of one transport. */
export function createGuestRequestRouter(context: GuestRequestContext): GuestRequestRouter {
  const { messages, emit, fail, isClosed } = context;
  let waiting: { id: Id; sync: boolean; reply: Uint8Array | null } | null = null;
  return {
    callbacks: {
      onNotify(bytes) {
        if (isClosed()) return;
        try {
          emit(messages.decode(bytes, 'notification'));
        } catch (error) {
          fail(error as MepError);
        }
      },
      onRequest(bytes) {
        if (isClosed()) return null;
        let message: JsonRpcMessage;
        try {
          message = messages.decode(bytes, 'request');
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
        waiting = pending;
        emit(message);
        if (pending.reply !== null || !context.runner().canWaitForReply) {
          waiting = null;
          return pending.reply;
        }
        pending.sync = false;
        return null;
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
    },
  };
}
