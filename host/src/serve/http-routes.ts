/**
 * Where the HTTP binding serves what, and its limits: `/extensions/<id>` for installed
 * extensions and those named on the command line, `/` for a single named one; `GET /health`
 * (no token) and `GET /info`. Platform-neutral.
 */
import { HOST_VERSION } from '../session/host-info.ts';
import { CALLABLE_METHODS } from './methods.ts';
import type { HostServer } from './host-server.ts';
import { DEFAULT_SEND_TIMEOUT_MS } from './send-timeout.ts';

/** The version of the HTTP wire, reported by `GET /info`. */
export const HTTP_PROTOCOL = 'mep-http/0.1';

/** Default bounds of an HTTP request (message size as the reference host: 64 MiB). */
export const HTTP_LIMITS = {
  maxBodyBytes: 64 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  /**
   * Connections open at once, authenticated or not (a slowloris client holds one per unfinished
   * head); past it a new one is closed unanswered, so file descriptors stay for sessions.
   */
  maxConnections: 1024,
  /**
   * Unsent bytes across the server (answers and SSE events clients have not read) past which the
   * answers waiting longest, then the open stream holding the most, are dropped (its call cancelled).
   */
  maxPendingBytes: 128 * 1024 * 1024,
  /**
   * How long a connection's waiting output may go without its client taking any of it before the
   * connection is ended (send-timeout.ts): counted from its last progress, not the answer's start.
   */
  sendTimeoutMs: DEFAULT_SEND_TIMEOUT_MS,
  /**
   * Unsent bytes of one SSE stream past which a process extension's stderr, sent on it as
   * `morphir.log` events, is not read until the client takes them (the extension waits on its
   * writes), as a socket client's `pauseAtBytes`.
   */
  pauseAtBytes: 8 * 1024 * 1024,
  /**
   * Request bodies held at once, in bytes, from their first byte read until their answer is
   * written (at least one largest body): a parsed body costs up to ~20× its bytes, so this, not
   * the number of clients, bounds what bodies cost the host. A body that does not fit waits unread.
   */
  maxBodiesBytes: 128 * 1024 * 1024,
  /**
   * Requests of one connection in flight at once (HTTP/1.1 pipelining): Node's parser starts a
   * handler for each request it parses and pauses only for unsent answers, so one connection whose
   * requests wait without writing (for the body budget, a session) held 20,000 handlers (+111 MB).
   * Past it the connection is read no further until one is answered; answers stay in order.
   */
  maxPipelined: 16,
  /**
   * Bodies of this many bytes and more are parsed and decoded on a worker thread with its own
   * heap, not the server's (body-off-thread.ts): a parsed body costs up to ~20× its bytes, and
   * collecting that on the server's thread paused every client (`/health` waited 7.4 s).
   */
  offThreadFromBytes: 1024 * 1024,
  /** The heap of the worker that reads one large body; a body whose values need more gets ERR_LIMIT `parseHeapBytes`. */
  parseHeapBytes: 1024 * 1024 * 1024,
};

/** What is served where. */
export interface HttpRoutes {
  /** Extensions named by the operator: route id → the reference the opener resolves (an installed id or a path). */
  extensions?: Readonly<Record<string, string>>;
  /** Serve every installed extension at `/extensions/<id>` as well. Default false. */
  installed?: boolean;
}

/** An installed extension id as a route may name it: no path, no dots leading, nothing escaped. */
const ROUTE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The extension reference served at `path`, or undefined. */
export function routeOf(routes: HttpRoutes, path: string): string | undefined {
  const named = routes.extensions ?? {};
  if (path === '/') {
    const ids = Object.keys(named);
    return ids.length === 1 ? named[ids[0] as string] : undefined;
  }
  const match = /^\/extensions\/([^/]+)\/?$/.exec(path);
  if (!match) return undefined;
  const id = match[1] as string;
  if (Object.hasOwn(named, id)) return named[id];
  return routes.installed && ROUTE_ID.test(id) ? id : undefined;
}

/** The route id of an extension reference named on the command line: its id, or a path's file name without extension. */
export function routeIdOf(reference: string): string {
  const base = reference.split(/[\\/]/).pop() ?? reference;
  const isPath = reference.includes('/') || reference.includes('\\');
  return isPath ? base.replace(/\.(wasm|mjs|cjs|js)$/, '') : reference;
}

/** The body of `GET /info`. */
export function httpInfo(routes: HttpRoutes, server: HostServer, sessions: number): Record<string, unknown> {
  return {
    name: 'mep-runtime',
    version: HOST_VERSION,
    protocol: HTTP_PROTOCOL,
    extensions: Object.keys(routes.extensions ?? {}).map((id) => `/extensions/${id}`),
    installed: Boolean(routes.installed),
    methods: ['morphir.initialize', ...CALLABLE_METHODS, 'morphir.shutdown'],
    sessions,
    slots: server.slotCount,
  };
}
