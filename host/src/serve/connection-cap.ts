/**
 * The bound on connections a listener holds at once (HTTP and Unix socket alike): past it Node
 * closes a new connection unanswered, and the server log says so at most every 10 s, so a flood
 * of connections does not flood the log too.
 */
import type { Server } from 'node:net';

/** Caps `listener` at `max` connections; `say(dropped)` is the log line for `dropped` so far. */
export function capConnections(listener: Server, max: number, log: (message: string) => void, say: (dropped: number) => string): void {
  listener.maxConnections = max;
  let dropped = 0;
  let droppedSince = 0;
  listener.on('drop', () => {
    dropped++;
    if (Date.now() - droppedSince < 10_000) return;
    log(say(dropped));
    droppedSince = Date.now();
  });
}
