/**
 * The bounds on connections a listener holds at once (HTTP and Unix socket alike): past the
 * total Node closes a new connection unanswered; past a client's share (HTTP: one address, an
 * IPv6 one by its /64) the host does, so one client cannot hold every connection. The server log
 * says so at most every 10 s, so a flood of connections does not flood the log too.
 */
import type { Server, Socket } from 'node:net';

/** Calls `log(say(dropped))` for the first drop and then at most every 10 s; `dropped` counts them all. */
function rateLimited(log: (message: string) => void, say: (dropped: number) => string): () => void {
  let dropped = 0;
  let droppedSince = 0;
  return () => {
    dropped++;
    if (Date.now() - droppedSince < 10_000) return;
    log(say(dropped));
    droppedSince = Date.now();
  };
}

/** Caps `listener` at `max` connections; `say(dropped)` is the log line for `dropped` so far. */
export function capConnections(listener: Server, max: number, log: (message: string) => void, say: (dropped: number) => string): void {
  listener.maxConnections = max;
  listener.on('drop', rateLimited(log, say));
}

/**
 * Caps each client of `listener` at `share` connections at once (`clientOf` its remote address):
 * a connection past its client's share is closed unanswered, before a byte of it is read.
 * `say(client, dropped)` is the log line. A share of `max` (the listener's total) or more is none.
 */
export function shareConnections(listener: Server, share: number, max: number, clientOf: (socket: Socket) => string, log: (message: string) => void, say: (client: string, dropped: number) => string): void {
  if (share >= max) return;
  const held = new Map<string, number>();
  let lastClient = '';
  const dropped = rateLimited(log, (count) => say(lastClient, count));
  listener.on('connection', (socket: Socket) => {
    const client = clientOf(socket);
    const count = held.get(client) ?? 0;
    if (count >= share) {
      lastClient = client;
      dropped();
      socket.destroy();
      return;
    }
    held.set(client, count + 1);
    socket.once('close', () => {
      const left = (held.get(client) ?? 1) - 1;
      if (left === 0) held.delete(client);
      else held.set(client, left);
    });
  });
}
