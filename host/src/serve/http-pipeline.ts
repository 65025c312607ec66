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
 * Not handled: when the read in hand ends inside a request's head, Node counts its headers
 * timeout for that head while the connection waits, so requests that wait longer than
 * `--headers-timeout` get Node's bare 408 and the connection closed (its own pause does the same).
 */
import type { Socket } from 'node:net';

/** The connection's state Node's HTTP server itself uses to pause a connection for unsent answers. */
interface PausableSocket extends Socket {
  _paused?: boolean;
  parser?: { pause(): void; resume(): void } | null;
}

interface Gate {
  running: number;
  queued: Array<() => void>;
  pausedHere: boolean;
}

/** Returns `admit(socket, start)`: runs `start` now, or once fewer than `max` of the connection's requests run. `start` resolves when its handler is done. */
export function createPipelineGate(max: number): (socket: Socket, start: () => Promise<void>) => void {
  const gates = new WeakMap<Socket, Gate>();
  const run = (socket: PausableSocket, gate: Gate, start: () => Promise<void>): void => {
    gate.running++;
    // A queued request whose connection is gone is not started (its answer has nowhere to go).
    const done = socket.destroyed ? Promise.resolve() : start();
    void done.finally(() => {
      gate.running--;
      gate.queued.shift()?.();
      // The queue empty, read on: the last request queued may still be receiving its body.
      if (gate.queued.length === 0 && gate.pausedHere) resume(socket, gate);
    });
  };
  return (socket, start) => {
    const pausable = socket as PausableSocket;
    let gate = gates.get(socket);
    if (!gate) gates.set(socket, (gate = { running: 0, queued: [], pausedHere: false }));
    const held = gate;
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
}

function resume(socket: PausableSocket, gate: Gate): void {
  gate.pausedHere = false;
  if (socket.destroyed || !socket._paused) return;
  socket._paused = false;
  socket.parser?.resume();
  socket.resume();
}
