/**
 * At most `max` requests of one HTTP/1.1 connection in flight at once (pipelining). Node's parser
 * starts a handler for every request it parses and pauses a connection only when its unsent
 * answers are large, so requests that wait without writing (for the body budget, a session) were
 * started without bound. Past `max`, a request's handler waits in the connection's queue and the
 * connection is read no further (Node's own pause: its parser stops after the read in hand, so a
 * queue holds at most what one read of the socket held); as handlers finish, queued ones start in
 * order and, the queue empty, reading resumes. Node writes the answers in request order.
 *
 * No deadlock on an unread body: the parser reaches request k + 1 only once request k's body is
 * whole, so every started handler's body is in; only the last queued request's body may be
 * unfinished, and it is started (and reading resumed) when the queue empties to it.
 *
 * A head cut by the pause: when the read in hand ends inside a request's head, Node counts its
 * headers timeout for that head while the connection waits, and would answer an honest client
 * 408 for the server's own wait. {@link PipelineGate.ownsTimeout} tells the server's
 * `clientError` listener that such a timeout is the gate's (the connection held, or read again
 * for less than a headers timeout): Node has then stopped counting that head, and the gate
 * counts it anew from when reading resumes, with the same bound; a head still unfinished then
 * gets the 408 Node would have sent.
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The connection's state Node's HTTP server itself uses to pause a connection for unsent answers. */
interface PausableSocket extends Duplex {
  _paused?: boolean;
  parser?: { pause(): void; resume(): void } | null;
  /** The response Node is writing on this connection (its own field, as in its `clientError` default). */
  _httpMessage?: { headersSent: boolean } | null;
}

interface Gate {
  running: number;
  queued: Array<() => void>;
  pausedHere: boolean;
  /** When reading last resumed (performance.now()). */
  resumedAt: number;
  /** Node gave up counting a head the pause cut: counted again from the resume. */
  headOwed: boolean;
  headTimer: ReturnType<typeof setTimeout> | undefined;
}

/** The pipelining bound of one server's connections. */
export interface PipelineGate {
  /** Runs `start` now, or once fewer than `max` of the connection's requests run. `start` resolves when its handler is done. */
  admit(socket: Socket, start: () => Promise<void>): void;
  /**
   * For a headers timeout Node reports on `socket`: true when the gate's wait caused it (the
   * connection held now, or read again less than `headersTimeoutMs` ago); the gate then bounds
   * the head itself, from the resume. False: the client's own delay, answered as Node would.
   */
  ownsTimeout(socket: Socket): boolean;
}

/** The bare answers Node gives a client error before it closes the connection, by error code. */
const CLIENT_ERROR_RESPONSES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
};
const BAD_REQUEST_RESPONSE = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

/**
 * What Node does with a client error (a parse error, a head too large or too slow) when the
 * server has no `clientError` listener: the bare answer for its code, unless an answer is already
 * being written on the connection, and the connection closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const pausable = socket as PausableSocket;
  if (socket.writable && !pausable._httpMessage?.headersSent) socket.write(CLIENT_ERROR_RESPONSES[error.code ?? ''] ?? BAD_REQUEST_RESPONSE);
  socket.destroy(error);
}

export function createPipelineGate(max: number, headersTimeoutMs: number): PipelineGate {
  const gates = new WeakMap<Socket, Gate>();
  const run = (socket: PausableSocket, gate: Gate, start: () => Promise<void>): void => {
    gate.running++;
    // A queued request whose connection is gone is not started (its answer has nowhere to go).
    const done = socket.destroyed ? Promise.resolve() : start();
    void done.finally(() => {
      gate.running--;
      gate.queued.shift()?.();
      // The queue empty, read on: the last request queued may still be receiving its body.
      if (gate.queued.length === 0 && gate.pausedHere) resume(socket, gate, headersTimeoutMs);
    });
  };
  const admit = (socket: Socket, start: () => Promise<void>): void => {
    const pausable = socket as PausableSocket;
    let gate = gates.get(socket);
    if (!gate) gates.set(socket, (gate = { running: 0, queued: [], pausedHere: false, resumedAt: -Infinity, headOwed: false, headTimer: undefined }));
    const held = gate;
    // A whole head arrived: what the gate owed the connection is paid.
    if (held.headOwed) settleHead(held);
    if (held.running < max && held.queued.length === 0) return run(pausable, held, start);
    held.queued.push(() => run(pausable, held, start));
    // As Node's server does for unsent answers: flag the socket (a request body being read
    // does not resume it then) and stop reading; Node pauses its parser after this read.
    if (!pausable._paused) {
      pausable._paused = true;
      pausable.pause();
    }
    held.pausedHere = true;
  };
  const ownsTimeout = (socket: Socket): boolean => {
    const gate = gates.get(socket);
    if (!gate || (!gate.pausedHere && performance.now() - gate.resumedAt >= headersTimeoutMs)) return false;
    gate.headOwed = true;
    if (!gate.pausedHere) boundHead(socket as PausableSocket, gate, headersTimeoutMs);
    return true;
  };
  return { admit, ownsTimeout };
}

function resume(socket: PausableSocket, gate: Gate, headersTimeoutMs: number): void {
  gate.pausedHere = false;
  gate.resumedAt = performance.now();
  if (gate.headOwed) boundHead(socket, gate, headersTimeoutMs);
  if (socket.destroyed || !socket._paused) return;
  socket._paused = false;
  socket.parser?.resume();
  socket.resume();
}

/** The head Node stopped counting gets a headers timeout from now; unfinished then, it is answered 408 (unless an answer is being written) and the connection closed. */
function boundHead(socket: PausableSocket, gate: Gate, headersTimeoutMs: number): void {
  clearTimeout(gate.headTimer);
  gate.headTimer = setTimeout(() => {
    gate.headTimer = undefined;
    if (!gate.headOwed || socket.destroyed) return;
    answerClientError(Object.assign(new Error('The request head took longer than --headers-timeout after the server read on.'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
  }, headersTimeoutMs);
  // A connection closed before it fires leaves nothing to answer (the callback sees it destroyed).
  gate.headTimer.unref();
}

function settleHead(gate: Gate): void {
  gate.headOwed = false;
  clearTimeout(gate.headTimer);
  gate.headTimer = undefined;
}
