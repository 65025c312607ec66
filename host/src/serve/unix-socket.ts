/**
 * Serving a host on a Unix domain socket: created with mode 0600 (only the owner may connect;
 * there is no other authentication), refusing to replace anything but a stale socket, and
 * removed again when serving stops.
 */
import { chmod, lstat, unlink } from 'node:fs/promises';
import { createConnection as connectSocket, createServer, type Server, type Socket } from 'node:net';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { HostServer } from './host-server.ts';
import { capConnections } from './connection-cap.ts';
import { channelFromSocket } from './node-channel.ts';
import { DEFAULT_SEND_TIMEOUT_MS, watchSends } from './send-timeout.ts';

/** A listening socket; see {@link listenUnixSocket}. */
export interface UnixSocketListener {
  /** The socket's path. */
  readonly path: string;
  /** Stop accepting clients, close the host server and remove the socket file. Idempotent. */
  close(): Promise<void>;
  /** Resolves once the listener is closed (by `close()` or the host server closing). */
  readonly closed: Promise<void>;
  /** Bytes of answers written to its open connections their clients have not taken yet, held in this process. */
  readonly unsentBytes: number;
}

/** Options of {@link listenUnixSocket}. */
export interface UnixSocketOptions {
  /** Clients connected at once; past it a new connection is closed unanswered. Default 1024. */
  maxConnections?: number;
  /**
   * How long a connection's unsent answers may go without its client taking any of them; past it
   * the connection is ended and its sessions closed (send-timeout.ts). Counted from the client's
   * last progress, not the answer's start. Default 60 s.
   */
  sendTimeoutMs?: number;
}

/** Default of {@link UnixSocketOptions.maxConnections}: each connection holds a descriptor and its buffers. */
export const DEFAULT_MAX_SOCKET_CONNECTIONS = 1024;

/**
 * Listen on `path` and serve every client that connects with `server`. Rejects with
 * MepError(ERR_USAGE) when `path` exists and is not a stale socket (a file, or a socket another
 * server is listening on). Closing the host server (e.g. `server/shutdown`) closes the listener.
 *
 * @example
 * const listener = await listenUnixSocket(createHostServer({ open }), '/run/user/1000/mep.sock');
 * try { await listener.closed; } finally { await listener.close(); }
 */
export async function listenUnixSocket(server: HostServer, path: string, options: UnixSocketOptions = {}): Promise<UnixSocketListener> {
  checkSocketPathLength(path);
  await removeStaleSocket(path);
  let clients = 0;
  const names = new WeakMap<Socket, string>();
  // Half-open: a client that shuts its write side still gets the answers to what it sent.
  const net: Server = createServer({ allowHalfOpen: true }, (socket) => {
    clients += 1;
    const name = `${path}#${clients}`;
    names.set(socket, name);
    server.connect(channelFromSocket(socket, name));
  });
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_SOCKET_CONNECTIONS;
  capConnections(net, maxConnections, (message) => server.log(message), (dropped) => `Socket connections past maxConnections (${maxConnections}) were closed unanswered (${dropped} so far).`);
  const sendTimeoutMs = options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  const sends = watchSends(net, sendTimeoutMs, (message) => server.log(message), (socket, bytes) => `${names.get(socket)} took none of the ${bytes} bytes of answers waiting for it for ${sendTimeoutMs} ms (--send-timeout); its connection was closed, and its sessions with it.`);
  await listenPrivately(net, path);

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => net.close(() => resolve()));
      await server.close();
      await stopped;
      await unlink(path).catch(() => undefined); // already gone is fine: nothing to clean up
      resolveClosed();
    })();
    return closing;
  };
  server.onClose(() => void close());
  return {
    path,
    close,
    closed,
    get unsentBytes() {
      return sends.waitingBytes;
    },
  };
}

/** Binds with a umask that leaves mode 0600, so the socket is never reachable by others. */
async function listenPrivately(net: Server, path: string): Promise<void> {
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      net.once('error', reject);
      // For a path, bind happens synchronously inside listen(), under the umask set above.
      net.listen(path, () => {
        net.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw new MepError(LocalErrorCode.Usage, `Cannot listen on the socket ${path}: ${(error as Error).message}. Choose a path in a directory you own.`, { cause: error });
  } finally {
    process.umask(previous);
  }
  try {
    await chmod(path, 0o600);
  } catch (error) {
    // Never left listening on a socket it could not make private.
    await new Promise<void>((resolve) => net.close(() => resolve()));
    throw new MepError(LocalErrorCode.Usage, `Cannot make the socket ${path} private (mode 0600): ${(error as Error).message}. Choose a path in a directory you own.`, { cause: error });
  }
}

/**
 * The bytes a Unix socket address holds, its terminating NUL excluded (`sun_path`: 108 on Linux,
 * 104 on macOS and the BSDs). A longer path was cut by the bind: the server listened elsewhere.
 */
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

function checkSocketPathLength(path: string): void {
  const bytes = Buffer.byteLength(path);
  if (bytes <= MAX_SOCKET_PATH_BYTES) return;
  throw new MepError(
    LocalErrorCode.Usage,
    `The socket path ${path} is ${bytes} bytes; a Unix socket address holds at most ${MAX_SOCKET_PATH_BYTES} bytes here. Choose a shorter --socket path (e.g. in $XDG_RUNTIME_DIR or ~/.mep).`,
    { data: { path, bytes, maxBytes: MAX_SOCKET_PATH_BYTES } },
  );
}

async function removeStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new MepError(LocalErrorCode.Usage, `Cannot check the socket path ${path}: ${(error as Error).message}.`, { cause: error });
  }
  if (!isSocket) {
    throw new MepError(LocalErrorCode.Usage, `${path} exists and is not a socket: refusing to replace it. Remove it or choose another --socket path.`, { data: { path } });
  }
  if (await isListening(path)) {
    throw new MepError(LocalErrorCode.Usage, `Another server is listening on ${path}: stop it (send server/shutdown) or choose another --socket path.`, { data: { path } });
  }
  await unlink(path);
}

function isListening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connectSocket(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    // ECONNREFUSED: a socket file nobody listens on any more, left by a server that died.
    probe.once('error', () => resolve(false));
  });
}
