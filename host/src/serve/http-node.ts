/**
 * Serving MEP over HTTP with `node:http` (`mep serve --http`): the Node binding of the HTTP wire
 * (`http-rpc.ts`) on the served host's sessions and limits. Every bound is checked where the
 * resource is taken: headers (size, time) by Node's parser, the body by its reader (size, time),
 * sessions by the host server's slots; nothing is read before Origin and the token are checked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import type { HostServer } from './host-server.ts';
import { checkContentType, checkOrigin, checkToken, clientOfAddress, hostsFor, isLoopback, type HeaderLookup, type HttpRefusal } from './http-guard.ts';
import { createSessionPool, type SessionPoolOptions } from './http-pool.ts';
import { HTTP_LIMITS, httpInfo, routeOf, type HttpRoutes } from './http-routes.ts';
import { answerHttpRpc, errorReply, type HttpRpcReply } from './http-rpc.ts';
import { readBodyOffThread, type OffThreadBody } from './body-off-thread.ts';
import { createUnreadAnswers } from './http-unread.ts';
import { createBodyBudget } from './http-body-budget.ts';
import { capConnections, shareConnections } from './connection-cap.ts';
import { answerClientError, createPipelineGate } from './http-pipeline.ts';
import { watchSends } from './send-timeout.ts';
import { openEventStream, paceOf, probeEndedClient } from './http-event-stream.ts';

/** Options of {@link listenHttp}; defaults (HTTP_LIMITS) are applied once, here. */
export interface HttpListenOptions extends HttpRoutes {
  /** Address to bind. Default 127.0.0.1; anything but loopback needs `token`. */
  host?: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** Bearer token clients must send. Required unless bound to loopback. Never logged. */
  token?: string;
  /** Origins (browser pages) allowed to call. Default none. */
  allowOrigins?: readonly string[];
  /** Largest request body in bytes (413 past it). Default 64 MiB. */
  maxBodyBytes?: number;
  /** Largest request head in bytes (431 past it). Default 16 KiB. */
  maxHeaderBytes?: number;
  /** Time to receive a request's headers. Default 10 s. */
  headersTimeoutMs?: number;
  /** Time to receive a request's body once its headers are in (408 past it). Default 30 s. */
  bodyTimeoutMs?: number;
  /** Connections open at once; past it a new one is closed unanswered. Default 1024. */
  maxConnections?: number;
  /**
   * Bytes HTTP clients have not read, across all clients: plain answers and event streams, finished or open. Past it
   * the answers waiting longest are dropped, then the open stream holding the most (its call cancelled). Default 128 MiB.
   */
  maxPendingBytes?: number;
  /**
   * How long a connection's waiting output (an answer, an event stream's events) may go without
   * its client taking any of it; past it the connection is ended and its call cancelled. Counted
   * from the client's last progress, not the answer's start. Default 60 s.
   */
  sendTimeoutMs?: number;
  /** Unsent bytes of one SSE stream past which a process extension's stderr is not read until the client takes them. Default 8 MiB. */
  pauseAtBytes?: number;
  /** Request bodies held at once, from their first byte to their answer (at least `maxBodyBytes`); a body past it waits unread. Default 128 MiB. */
  maxBodiesBytes?: number;
  /** Requests of one connection in flight at once; past it the connection is read no further until one is answered. Default 16. */
  maxPipelined?: number;
  /** Bodies of this many bytes and more are read on a worker thread with its own heap (body-off-thread.ts). Default 1 MiB. */
  offThreadFromBytes?: number;
  /** The heap of that worker; a body whose values need more is answered ERR_LIMIT `parseHeapBytes`. Default 1 GiB. */
  parseHeapBytes?: number;
  /** The session pool: a session per request, idle sessions kept, their runtime options. */
  sessions?: Omit<SessionPoolOptions, 'server'>;
  /**
   * Sessions one client (its remote address; an IPv6 one by its /64; never a forwarded header)
   * holds at once; past it ERR_LIMIT `sessionsPerClient`. Default a quarter of the server's
   * `maxSessions`, rounded up; `maxSessions` or more: no share.
   */
  maxSessionsPerClient?: number;
  /**
   * Connections one client (its remote address, as for `maxSessionsPerClient`) holds at once,
   * with or without the token; past it a new one is closed unanswered. Default a quarter of
   * `maxConnections`, rounded up; `maxConnections` or more: no share.
   */
  maxConnectionsPerClient?: number;
  /**
   * Bytes of request bodies one client (its remote address) holds at once, of `maxBodiesBytes`;
   * past it its next body waits unread while other clients' bodies pass. Default a quarter of
   * `maxBodiesBytes`; never less than `maxBodyBytes`.
   */
  maxBodiesPerClientBytes?: number;
}

/** A listening HTTP server; see {@link listenHttp}. */
export interface HttpListener {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  /** Stop accepting, close every session and connection. Idempotent. */
  close(): Promise<void>;
  /** Resolves once closed (by `close()` or the host server closing). */
  readonly closed: Promise<void>;
  /** Bytes written to its open connections (answers, events) their clients have not taken yet, held in this process. */
  readonly unsentBytes: number;
}

/**
 * Serve `server`'s extensions over HTTP. Rejects with MepError(ERR_USAGE) when bound beyond
 * loopback without a token, or when the address cannot be bound.
 *
 * @example
 * const listener = await listenHttp(createHostServer({ open }), { port: 8080, extensions: { hello: './hello.wasm' } });
 * try { await listener.closed; } finally { await listener.close(); }
 */
export async function listenHttp(server: HostServer, options: HttpListenOptions): Promise<HttpListener> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && !options.token) {
    throw new MepError(LocalErrorCode.Usage, `Serving HTTP on ${host} reaches beyond this machine: give a token (--token-file PATH or MEP_HTTP_TOKEN) so only clients holding it may call, or bind to 127.0.0.1.`, { data: { host } });
  }
  const limits = { ...HTTP_LIMITS, ...definedOf(options) };
  const guard = { token: options.token, allowOrigins: options.allowOrigins, allowHosts: hostsFor(host) };
  const pool = createSessionPool({ server, ...options.sessions, ...(options.maxSessionsPerClient === undefined ? {} : { maxPerClient: options.maxSessionsPerClient }) });
  const bodiesTotal = Math.max(limits.maxBodiesBytes, limits.maxBodyBytes);
  const bodies = createBodyBudget(bodiesTotal, Math.max(limits.maxBodyBytes, options.maxBodiesPerClientBytes ?? Math.ceil(bodiesTotal / 4)));
  const unread = createUnreadAnswers(limits.maxPendingBytes, (line) => server.log(line));
  /** A body from OFF_THREAD_FROM_BYTES is read on a worker with its own heap (body-off-thread.ts); a smaller one here. */
  const answerBody = async (bytes: Buffer, signal: AbortSignal, answer: (body: string | OffThreadBody) => Promise<HttpRpcReply>): Promise<HttpRpcReply> => {
    if (bytes.length < limits.offThreadFromBytes) return answer(bytes.toString('utf8'));
    let read: OffThreadBody;
    try {
      read = await readBodyOffThread(bytes, { signal, heapBytes: limits.parseHeapBytes });
    } catch (error) {
      return errorReply(null, signal.aborted ? new MepError(-32800, 'The client closed the request while its body was being read; nothing was sent.') : error, 200, (line) => server.log(line));
    }
    return answer(read);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> => {
    const header: HeaderLookup = (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const path = (req.url ?? '/').split('?')[0] as string;
    const refused = checkOrigin(header, guard) ?? (path === '/health' ? undefined : await checkToken(header, guard.token));
    if (refused) return refuse(res, refused);
    if (req.method === 'GET') {
      if (path === '/health') return json(res, 200, { status: server.closing ? 'stopping' : 'ok' });
      if (path === '/' || path === '/info' || routeOf(options, path)) return json(res, 200, httpInfo(options, server, pool.size));
      return refuse(res, notFound(path));
    }
    if (req.method !== 'POST') return refuse(res, { status: 405, code: 'method', message: 'POST a JSON-RPC request (GET /health and /info describe the server).', headers: { allow: 'GET, POST' } });
    const extension = routeOf(options, path);
    if (extension === undefined) return refuse(res, notFound(path));
    const refusedType = checkContentType(header);
    if (refusedType) return refuse(res, refusedType);
    if (server.closing) return refuse(res, { status: 503, code: 'stopping', message: 'The server is stopping; retry on another replica.' });
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limits.maxBodyBytes) return refuse(res, tooLarge(limits.maxBodyBytes), true);
    // The body's bytes (a chunked one: the largest body) are reserved before any is read, until the answer is written.
    const controller = new AbortController();
    // The wait's own timer, held by this request: an AbortSignal.timeout inside AbortSignal.any
    // is referenced weakly and can be collected under heap pressure, never firing (the server no
    // longer has Node's requestTimeout behind it).
    const waiting = new AbortController();
    const waitTimer = setTimeout(() => waiting.abort(), limits.bodyTimeoutMs);
    res.on('close', () => {
      // The client went away before its answer was written: cancel the call (MEP $/cancelRequest).
      if (!res.writableFinished) controller.abort(new MepError(-32800, 'The HTTP client closed the request.'));
      waiting.abort();
    });
    const reserved = await bodies.reserve(Number.isFinite(declared) ? declared : limits.maxBodyBytes, waiting.signal, clientOfAddress(req.socket.remoteAddress)).finally(() => clearTimeout(waitTimer));
    if (!reserved) {
      if (controller.signal.aborted) return;
      return refuse(res, { status: 503, code: 'busy', message: `The server held its limit of request bodies (${bodies.held} bytes) for ${limits.bodyTimeoutMs} ms; retry shortly.`, headers: { 'retry-after': '1' } }, true);
    }
    res.once('close', () => reserved.release());
    // A client that waits for 100 Continue is asked for its body only now, past every check.
    if (expectsContinue) res.writeContinue();
    const bytes = await readBody(req, limits.maxBodyBytes, limits.bodyTimeoutMs);
    if (!Buffer.isBuffer(bytes)) return refuse(res, bytes, true);
    reserved.shrink(bytes.length);

    const streaming = (header('accept') ?? '').includes('text/event-stream');
    const emit = streaming ? openEventStream(res, unread.stream(res, extension)) : undefined;
    const stopProbing = probeEndedClient(req, res);
    const reply = await answerBody(bytes, controller.signal, (body) => answerHttpRpc(pool, extension, body, { signal: controller.signal, log: (line) => server.log(line), client: clientOfAddress(req.socket.remoteAddress), ...(emit ? { emit, pace: paceOf(res, limits.pauseAtBytes) } : {}) })).finally(stopProbing);
    if (res.destroyed) return;
    if (emit) {
      if (reply.message) emit(reply.message);
      res.end();
    } else if (reply.message) json(res, reply.status, reply.message);
    else res.writeHead(202).end();
    // A finished answer, plain or an event stream, waits for its client within the server's bound.
    unread.add(res, extension);
  };

  // Node's requestTimeout is off (0): it counts from the headers, so a body that waited for the
  // budget was cut off with Node's bare 408 before its own --body-timeout to arrive. The host
  // arms both deadlines itself: the wait (503 busy) and the read (408 body-timeout).
  // At most limits.maxPipelined handlers of one connection at once; past it the connection is read no further.
  const pipeline = createPipelineGate(limits.maxPipelined, limits.headersTimeoutMs);
  const serve = (expectsContinue: boolean) => (req: IncomingMessage, res: ServerResponse): void => {
    pipeline.admit(req.socket, () => handle(req, res, expectsContinue).catch((error: unknown) => {
      server.log(`HTTP request failed: ${(error as Error).message}`);
      if (!res.headersSent) refuse(res, { status: 503, code: 'internal', message: 'The request could not be served; the server log has the details.' });
      else res.destroy();
    }));
  };
  const http: Server = createServer(
    { maxHeaderSize: limits.maxHeaderBytes, headersTimeout: limits.headersTimeoutMs, requestTimeout: 0, connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs) },
    serve(false),
  );
  // A client that shuts its write side after a whole request (HTTP/1.1 allows it) gets its answer,
  // then the connection ends; an unfinished request is a parse error and the socket is dropped.
  // Node's own switch (default false: such a request was aborted unanswered).
  (http as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Without this listener Node answers 100 Continue itself, before the token is checked.
  http.on('checkContinue', serve(true));
  // A headers timeout the pipelining gate caused is the gate's to bound; every other client error
  // is answered as Node answers it without a listener.
  http.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && pipeline.ownsTimeout(socket as Socket)) return;
    answerClientError(error, socket);
  });
  capConnections(http, limits.maxConnections, (message) => server.log(message), (dropped) => `HTTP connections past --max-connections (${limits.maxConnections}) were closed unanswered (${dropped} so far).`);
  const share = options.maxConnectionsPerClient ?? Math.ceil(limits.maxConnections / 4);
  shareConnections(http, share, limits.maxConnections, (socket) => clientOfAddress(socket.remoteAddress), (message) => server.log(message), (client, dropped) => `HTTP connections of the client at ${client} past its share of ${share} (--max-connections-per-client) were closed unanswered (${dropped} so far, all clients).`);
  const sends = watchSends(http, limits.sendTimeoutMs, (message) => server.log(message), (socket, bytes) => `The HTTP client at ${clientOfAddress(socket.remoteAddress)} took none of the ${bytes} bytes waiting for it for ${limits.sendTimeoutMs} ms (--send-timeout); its connection was closed, and a call it had running cancelled.`);
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error) => reject(new MepError(LocalErrorCode.Usage, `Cannot listen on ${host}:${options.port}: ${error.message}. Choose another --http address.`, { cause: error })));
    http.listen(options.port, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      await pool.close();
      await server.close();
      http.closeAllConnections();
      await stopped;
      resolveClosed();
    })();
    return closing;
  };
  server.onClose(() => void close());
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close,
    closed,
    get unsentBytes() {
      return sends.waitingBytes;
    },
  };
}

/**
 * The pieces a body may come in: Node.js hands over one Buffer per piece it parses (a chunk of a
 * chunked body, a socket read), so a body of 1-byte chunks (6 bytes on the wire each) cost an
 * object and an event per byte. Past the first {@link FREE_BODY_PIECES}, the pieces must average
 * {@link MIN_BODY_PIECE_BYTES} bytes (a TCP segment is 536 or more), else 400 `fragmented-body`.
 */
const FREE_BODY_PIECES = 1024;
const MIN_BODY_PIECE_BYTES = 64;

/** Reads the body's bytes within `maxBytes` and `timeoutMs`, or says which bound it broke. */
function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Buffer | HttpRefusal> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) return Promise.resolve(tooLarge(maxBytes));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | HttpRefusal): void => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      resolve(result);
    };
    const timer = setTimeout(() => finish({ status: 408, code: 'body-timeout', message: `The request body did not arrive within ${timeoutMs} ms; send it at once.` }), timeoutMs);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish(tooLarge(maxBytes));
      if (chunks.length >= FREE_BODY_PIECES && chunks.length * MIN_BODY_PIECE_BYTES > size) {
        return finish({ status: 400, code: 'fragmented-body', message: `The request body came in ${chunks.length + 1} pieces of ${Math.floor(size / (chunks.length + 1))} bytes on average; past ${FREE_BODY_PIECES} pieces they must average ${MIN_BODY_PIECE_BYTES} bytes or more. Send the body in larger writes (or with Content-Length).` });
      }
      chunks.push(chunk);
    });
    req.once('end', () => finish(Buffer.concat(chunks, size)));
    req.once('error', () => finish({ status: 408, code: 'body-aborted', message: 'The request body was cut off.' }));
  });
}

function tooLarge(maxBytes: number): HttpRefusal {
  return { status: 413, code: 'too-large', message: `The request body is larger than ${maxBytes} bytes, this server's limit (--max-message).` };
}

function notFound(path: string): HttpRefusal {
  return { status: 404, code: 'not-found', message: `Nothing is served at ${JSON.stringify(path.slice(0, 200))}: POST to /extensions/<id> (GET /info lists them).` };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  // Answered before its body arrived (refused, or a GET with a body): the connection closes after
  // the answer. Kept open, Node reads and throws away the rest of the body for as long as it
  // comes, outside --body-timeout and --max-message (a client without the token held a
  // connection that way indefinitely).
  const unread = bodyUnread(res.req);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers, ...(unread ? { connection: 'close' } : {}) });
  res.end(text);
  if (unread) res.once('finish', () => res.socket?.destroy());
}

/** True while a request that has a body (declared, or chunked) has not been received whole. */
function bodyUnread(req: IncomingMessage | undefined): boolean {
  if (!req || req.complete) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Answers a refusal; `close` drops the connection after it (the rest of a body is not read). */
function refuse(res: ServerResponse, refusal: HttpRefusal, close = false): void {
  json(res, refusal.status, { error: { code: refusal.code, message: refusal.message } }, { ...refusal.headers, ...(close ? { connection: 'close' } : {}) });
  if (close) res.once('finish', () => res.socket?.destroy());
}

function definedOf(options: HttpListenOptions): Partial<typeof HTTP_LIMITS> {
  const out: Partial<typeof HTTP_LIMITS> = {};
  for (const key of Object.keys(HTTP_LIMITS) as Array<keyof typeof HTTP_LIMITS>) if (options[key] !== undefined) out[key] = options[key];
  return out;
}
