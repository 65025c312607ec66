/**
 * What HTTP clients leave unread, bounded across the server: plain JSON answers, finished event
 * streams, and event streams still open. An answer is written whole (up to `--max-message`); what
 * the client's socket has not taken waits in the server until it does. Without a bound, every
 * connection (up to `--max-connections`) could hold one answer: 30 loopback clients that never
 * read took the server from 98 MB to 1.5 GB. An open SSE stream was bounded alone (each up to
 * `maxPendingBytes`), so N clients that asked for streams and read none held N × 128 MiB.
 *
 * The unread bytes of all of them are added up whenever an answer is written or a stream's event
 * leaves bytes unsent; past `maxPendingBytes`, what has gone longest without its client taking
 * anything (the bytes its socket handed the kernel not growing) goes first, a finished answer or an open stream alike (never the answer just
 * written): each is dropped with its connection (an open stream's call is cancelled), and the
 * server log says so. A client that reads is unaffected, however much it holds at a moment:
 * before, the open stream holding the most bytes went first, and a client reading a stream slower
 * than its extension made it (1.5-2.6 MB behind) was dropped while stalled clients, whose first
 * megabytes sit in the kernel's socket buffers unseen, held the rest of the bound.
 */
import type { ServerResponse } from 'node:http';

/** The server's answers and event streams still waiting for their clients; see the module comment. */
export interface UnreadAnswers {
  /** Counts `res`, just ended with its answer, until its client has taken it. */
  add(res: ServerResponse, extension: string): void;
  /**
   * Counts `res`, an open event stream, until it ends; returns what to call after each event is
   * written (checks the bound when the event left bytes unsent).
   */
  stream(res: ServerResponse, extension: string): () => void;
}

/**
 * @example
 * const unread = createUnreadAnswers(limits.maxPendingBytes, (line) => server.log(line));
 * res.end(text); unread.add(res, extension);
 */
export function createUnreadAnswers(maxPendingBytes: number, log: (line: string) => void): UnreadAnswers {
  const waiting = new Map<ServerResponse, string>();
  const streams = new Map<ServerResponse, string>();
  // For each, what its socket had handed the kernel (taken by the client, or on the way) when
  // last looked at, and when that last grew (a monotonic clock). A client that reads keeps it
  // growing, however far behind its extension it is; one that stalled does not, however little
  // it holds (its first megabytes sit in the kernel's socket buffers, unseen here).
  const progress = new Map<ServerResponse, { taken: number; at: number }>();
  const held = (): number => {
    let total = 0;
    const now = performance.now();
    for (const res of [...waiting.keys(), ...streams.keys()]) {
      total += res.writableLength;
      const socket = res.socket;
      const taken = socket ? socket.bytesWritten - socket.writableLength : 0;
      const seen = progress.get(res);
      if (seen === undefined || seen.taken !== taken) progress.set(res, { taken, at: now });
    }
    return total;
  };
  const drop = (res: ServerResponse): void => {
    const unread = res.writableLength;
    const answer = waiting.get(res);
    waiting.delete(res);
    progress.delete(res);
    if (answer !== undefined) {
      log(`${answer}: an answer was dropped with its connection: ${unread} bytes of it were still unread while answers waiting for their clients passed ${maxPendingBytes} bytes (maxPendingBytes); a client must read what it asked for.`);
    } else {
      const served = streams.get(res);
      streams.delete(res);
      log(`${served}: an event stream was dropped: ${unread} bytes of its events were waiting to be read while the events and answers HTTP clients left unread passed ${maxPendingBytes} bytes across the server (maxPendingBytes); a client must read what it asked for. Its call is cancelled.`);
    }
    res.destroy();
  };
  /**
   * Drops what waits until the total is within the bound: first what has gone longest without
   * its client taking anything (its socket's progress), an answer or an open stream alike;
   * `keep` (an answer just written) is never dropped.
   */
  const enforce = (keep?: ServerResponse): void => {
    let total = held();
    if (total <= maxPendingBytes) return;
    const order = [...progress.entries()].filter(([res]) => res !== keep && res.writableLength > 0).sort((a, b) => a[1].at - b[1].at);
    for (const [res] of order) {
      if (total <= maxPendingBytes) return;
      total -= res.writableLength;
      drop(res);
    }
  };
  return {
    add(res, extension) {
      streams.delete(res);
      if (res.writableFinished || res.destroyed) return;
      waiting.set(res, extension);
      const done = (): void => void (waiting.delete(res), progress.delete(res));
      res.once('finish', done).once('close', done);
      enforce(res);
    },
    stream(res, extension) {
      if (res.destroyed) return () => undefined;
      streams.set(res, extension);
      res.once('close', () => void (streams.delete(res), progress.delete(res)));
      // Only an event its client has not taken adds to what the server holds.
      return () => {
        if (streams.has(res) && res.writableLength > 0) enforce();
      };
    },
  };
}
