/**
 * The byte stream one client of a served host talks over: stdio, a Unix socket connection, or
 * an in-memory pair. The protocol engine (`host-server.ts`) sees only this interface, so it has
 * no `node:` import and runs wherever a stream of bytes can be had.
 */
import type { Disposer } from '../transport/types.ts';

/** One bidirectional byte stream to one client. */
export interface ByteChannel {
  /** Who is on the other end, for messages: `stdio`, a socket path and client number. */
  readonly name: string;
  /** Queue bytes to the client, in order. Ignored once the channel ended. */
  write(bytes: Uint8Array): void;
  /** Bytes from the client, in arrival order. */
  onData(listener: (chunk: Uint8Array) => void): Disposer;
  /** Called once when the client side ended (disconnect, error; end of input where {@link onInputEnd} is not listened to). */
  onEnd(listener: (error?: Error) => void): Disposer;
  /**
   * Called once when the client half-closed (`shutdown(SHUT_WR)`, end of stdin): it sends nothing
   * more but still reads. Without a listener, that ends the channel. Absent: no half-close.
   */
  onInputEnd?(listener: () => void): Disposer;
  /** End the stream from this side; `onEnd` listeners are called. Idempotent. */
  close(): void;
  /** End the stream at once, discarding the pending bytes (a client that stopped reading). */
  destroy(): void;
  /** Bytes written and not yet taken by the other end (queued in this process). */
  readonly pendingBytes: number;
  /** Stop delivering `onData` until `resume()`: back-pressure on a client that does not read. */
  pause(): void;
  /** Deliver `onData` again, starting with anything held while paused. */
  resume(): void;
  /** Called whenever the pending bytes were all handed on. */
  onDrain(listener: () => void): Disposer;
}

/** An in-memory {@link ByteChannel} end; see {@link createByteChannelPair}. */
export interface MemoryByteChannel extends ByteChannel {
  /** True once either side closed. */
  readonly ended: boolean;
}

/**
 * Two connected in-memory channels: what one writes, the other receives (copied, in a
 * microtask). Closing either end ends both. For tests and for serving a host inside one process.
 *
 * @example
 * const [serverSide, clientSide] = createByteChannelPair();
 * const connection = server.connect(serverSide);
 * try { clientSide.write(encoder.encode('{"jsonrpc":"2.0","id":1,"method":"server/info"}\n')); }
 * finally { clientSide.close(); await connection.closed; }
 */
export function createByteChannelPair(names: [string, string] = ['server', 'client']): [MemoryByteChannel, MemoryByteChannel] {
  const data = [new Set<(chunk: Uint8Array) => void>(), new Set<(chunk: Uint8Array) => void>()];
  const ends = [new Set<(error?: Error) => void>(), new Set<(error?: Error) => void>()];
  const drains = [new Set<() => void>(), new Set<() => void>()];
  /** Per side: chunks that arrived while it was paused, in order; null while reading. */
  const held: (Uint8Array[] | null)[] = [null, null];
  /** Per side: bytes written and not yet delivered to the other side. */
  const pending = [0, 0];
  let ended = false;

  const deliver = (to: 0 | 1, chunk: Uint8Array): void => {
    const queue = held[to];
    if (queue !== null) queue.push(chunk);
    else for (const listener of [...data[to]]) listener(chunk);
  };

  const endBoth = (): void => {
    if (ended) return;
    ended = true;
    // Bytes written before the close are delivered first: they were queued as earlier microtasks.
    queueMicrotask(() => {
      for (const set of ends) for (const listener of [...set]) listener();
    });
  };

  const make = (self: 0 | 1): MemoryByteChannel => {
    const other = self === 0 ? 1 : 0;
    return {
      name: names[self],
      get ended() {
        return ended;
      },
      get pendingBytes() {
        return pending[self];
      },
      write(bytes) {
        if (ended) return;
        const copy = bytes.slice();
        pending[self] += copy.byteLength;
        queueMicrotask(() => {
          // Bytes held by a paused reader stay pending for the writer, as in a socket's buffers.
          if (held[other] === null) pending[self] -= copy.byteLength;
          deliver(other, copy);
          if (pending[self] === 0) for (const listener of [...drains[self]]) listener();
        });
      },
      pause() {
        held[self] ??= [];
      },
      resume() {
        const queue = held[self];
        if (queue === null) return;
        held[self] = null;
        for (const chunk of queue) {
          pending[other] -= chunk.byteLength;
          deliver(self, chunk);
        }
        if (queue.length > 0 && pending[other] === 0) for (const listener of [...drains[other]]) listener();
      },
      onDrain(listener) {
        drains[self].add(listener);
        return () => void drains[self].delete(listener);
      },
      onData(listener) {
        data[self].add(listener);
        return () => void data[self].delete(listener);
      },
      onEnd(listener) {
        ends[self].add(listener);
        return () => void ends[self].delete(listener);
      },
      close: endBoth,
      destroy() {
        held[0] = held[1] = null;
        pending[0] = pending[1] = 0;
        endBoth();
      },
    };
  };
  return [make(0), make(1)];
}
