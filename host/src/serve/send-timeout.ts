/**
 * The send timeout of a listener's connections (HTTP and Unix socket alike), as nginx's
 * `send_timeout`: a connection with output waiting whose client takes none of it for
 * `timeoutMs` is ended, and the server log names the client and the flag. Without it a client
 * that read its answer a byte a second (or not at all, under every byte bound) kept its
 * connection, its answer's unsent bytes, its share of connections and, over a socket, its
 * sessions' slots, for as long as it liked.
 *
 * The time counts from the client's last progress, not from the answer's start: a slow network
 * that takes a 64 MiB answer in ten minutes is never cut while it keeps taking bytes. Progress is
 * what the kernel took: a write to the socket finished (`bytesWritten - writableLength` grew), or
 * the write in flight shrank (libuv's `writeQueueSize` fell: a partial write, as a client reading
 * a few bytes at a time makes). Writes the server adds (SSE events, the keep-alive probes) are not
 * progress: they wait behind the write in flight. A connection with nothing waiting is not timed.
 */
import type { Server, Socket } from 'node:net';

/** Default of the send timeout: a minute without the client taking a byte of what waits for it. */
export const DEFAULT_SEND_TIMEOUT_MS = 60_000;

/** Where one socket's sending stood when last looked at. */
interface Sending {
  /** Bytes of finished writes. */
  done: number;
  /** Bytes of the write in flight libuv has not handed the kernel. */
  queued: number;
  /** When it last made progress, or had nothing waiting (performance.now()). */
  at: number;
}

/** What {@link watchSends} tells. */
export interface SendWatch {
  /** Bytes written to the listener's open connections and not taken by their clients yet (held in this process). */
  readonly waitingBytes: number;
}

/** Bytes of the write in flight still in libuv's queue (0 when the handle is gone). */
function queuedOf(socket: Socket): number {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle;
  return handle?.writeQueueSize ?? 0;
}

/**
 * Times every connection of `listener`: one whose waiting output makes no progress for
 * `timeoutMs` is destroyed (what it held is let go as when its client goes away) and
 * `say(socket, waitingBytes)` is logged. One timer for all of them, running while any is open.
 *
 * @example
 * watchSends(net, 60_000, (message) => server.log(message), (socket, bytes) => `${socket.remoteAddress}: ${bytes} bytes unread`);
 */
export function watchSends(listener: Server, timeoutMs: number, log: (message: string) => void, say: (socket: Socket, waitingBytes: number) => string): SendWatch {
  const sockets = new Map<Socket, Sending>();
  const tickMs = Math.min(1_000, Math.max(5, Math.floor(timeoutMs / 4)));
  let timer: ReturnType<typeof setInterval> | undefined;
  const sweep = (): void => {
    const now = performance.now();
    for (const [socket, seen] of sockets) {
      const waiting = socket.writableLength;
      const done = socket.bytesWritten - waiting;
      const queued = queuedOf(socket);
      if (waiting === 0 || done !== seen.done || queued < seen.queued) {
        sockets.set(socket, { done, queued, at: now });
        continue;
      }
      seen.queued = queued;
      if (now - seen.at < timeoutMs) continue;
      sockets.delete(socket);
      log(say(socket, waiting));
      socket.destroy();
    }
    if (sockets.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  listener.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    sockets.set(socket, { done: 0, queued: 0, at: performance.now() });
    socket.once('close', () => sockets.delete(socket));
    if (timer === undefined) {
      timer = setInterval(sweep, tickMs);
      timer.unref();
    }
  });
  return {
    get waitingBytes() {
      let total = 0;
      for (const socket of sockets.keys()) total += socket.writableLength;
      return total;
    },
  };
}
