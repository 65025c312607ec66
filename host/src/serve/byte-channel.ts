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
  /** Called once when the client side ended (end of input, disconnect, error). */
  onEnd(listener: (error?: Error) => void): Disposer;
  /** End the stream from this side; `onEnd` listeners are called. Idempotent. */
  close(): void;
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
  let ended = false;

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
      write(bytes) {
        if (ended) return;
        const copy = bytes.slice();
        queueMicrotask(() => {
          for (const listener of [...data[other]]) listener(copy);
        });
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
    };
  };
  return [make(0), make(1)];
}
