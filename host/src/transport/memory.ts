/**
 * An in-memory pair of connected transports, for tests of rpc and sessions. Each message is
 * copied through JSON (as on a real wire: undefined members vanish, nothing is shared) and
 * delivered in a microtask, in order; messages sent before a close are delivered before it.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { createTransportEvents } from './events.ts';
import type { JsonRpcMessage, Transport } from './types.ts';
import { parseJson } from '../protocol/json-parse.ts';

/** Options for {@link createMemoryTransportPair}. */
export interface MemoryTransportPairOptions {
  /** Names of the two ends. Default `['host', 'extension']`. */
  names?: [string, string];
  /** Deliver inline, inside `send`, instead of in a microtask (like the wasm transport). */
  sync?: boolean;
}

/** One end of a memory pair. */
export interface MemoryTransport extends Transport {
  /** Ids passed to {@link Transport.cancel} on this end, in order (for tests). */
  readonly cancelled: ReadonlyArray<string | number>;
  /** True once this end is closed. */
  readonly closed: boolean;
  /** True while this end was paused ({@link Transport.pause}): what arrives meanwhile is held, in order, until it resumes. */
  readonly paused: boolean;
  /**
   * Simulate this end dying: it closes with `error` (e.g. ExtensionCrashed) and the other end
   * closes with ERR_TRANSPORT_CLOSED.
   */
  fail(error: MepError): void;
}

interface End extends MemoryTransport {
  deliver(message: JsonRpcMessage): void;
  shut(error: MepError | undefined): void;
}

function createEnd(name: string, schedule: (task: () => void) => void, peer: () => End): End {
  const events = createTransportEvents();
  const cancelled: Array<string | number> = [];
  let paused = false;
  const held: JsonRpcMessage[] = [];

  const end: End = {
    name,
    cancelled,
    get closed() {
      return events.closed;
    },
    get paused() {
      return paused;
    },
    send(message) {
      if (events.closed) throw new MepError(LocalErrorCode.TransportClosed, `Cannot send to ${peer().name}: the memory transport ${name} is closed.`);
      const copy = parseJson(JSON.stringify(message), 'data') as JsonRpcMessage;
      const other = peer();
      schedule(() => other.deliver(copy));
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    cancel(id) {
      cancelled.push(id);
    },
    deliver(message) {
      if (paused) held.push(message);
      else events.emitMessage(message);
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      // A listener may pause again while the held messages are delivered: the rest wait for it.
      while (!paused && held.length > 0) events.emitMessage(held.shift() as JsonRpcMessage);
    },
    shut(error) {
      events.emitClose(error);
    },
    fail(error) {
      if (events.closed) return;
      const other = peer();
      end.shut(error);
      schedule(() => other.shut(new MepError(LocalErrorCode.TransportClosed, `The memory transport ${name} died.`, { cause: error })));
    },
    async close() {
      if (events.closed) return;
      const other = peer();
      end.shut(undefined);
      schedule(() => other.shut(new MepError(LocalErrorCode.TransportClosed, `The memory transport ${name} was closed by its owner.`)));
    },
  };
  return end;
}

/**
 * Create two connected transports: what one sends, the other receives.
 *
 * @example
 * const [host, extension] = createMemoryTransportPair();
 * try { extension.onMessage((m) => …); host.send({ jsonrpc: '2.0', method: 'x' }) }
 * finally { await host.close(); await extension.close() }
 */
export function createMemoryTransportPair(options: MemoryTransportPairOptions = {}): [MemoryTransport, MemoryTransport] {
  const [aName, bName] = options.names ?? ['host', 'extension'];
  const schedule = options.sync ? (task: () => void) => task() : (task: () => void) => queueMicrotask(task);
  const a: End = createEnd(aName, schedule, () => b);
  const b: End = createEnd(bName, schedule, () => a);
  return [a, b];
}
