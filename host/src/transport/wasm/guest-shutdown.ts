/**
 * Closing a guest transport, once: drop what is queued, interrupt the running call, release the
 * runner (its worker or engine) and tell the close listeners — with the typed error when the
 * close was a failure, nothing when it was asked for.
 */
import type { MepError } from '../../protocol/errors.ts';
import type { TransportEvents } from '../events.ts';
import type { LogSink } from '../types.ts';
import { Interrupt } from './engine.ts';
import type { GuestRunner } from './runner.ts';

/** What the shutdown needs from its transport. */
export interface ShutdownContext {
  name: string;
  log?: LogSink;
  events: TransportEvents;
  runner(): GuestRunner;
  /** Drops queued messages. */
  clearQueue(): void;
}

/** The close state of one transport. */
export interface GuestShutdown {
  readonly closed: boolean;
  /** Why it closed, when it was a failure. */
  readonly error: MepError | undefined;
  /** Closes with `error` (a failure) or without (asked for); resolves once the runner is released. */
  close(error?: MepError): Promise<void>;
}

/** Creates the close state of one transport. */
export function createGuestShutdown(context: ShutdownContext): GuestShutdown {
  const { name, log, events } = context;
  let closed = false;
  let closeError: MepError | undefined;
  let closing: Promise<void> | undefined;
  return {
    get closed() {
      return closed;
    },
    get error() {
      return closeError;
    },
    close(error) {
      if (closing) return closing;
      closed = true;
      closeError = error;
      context.clearQueue();
      const runner = context.runner();
      runner.interrupt(Interrupt.Close);
      closing = runner.close().catch((cause) => {
        // The instance is being discarded; a failure to release it leaves nothing to recover.
        log?.({ level: 'warn', message: `closing wasm extension "${name}" failed: ${String(cause)}`, source: name });
      });
      events.emitClose(error);
      return closing;
    },
  };
}
