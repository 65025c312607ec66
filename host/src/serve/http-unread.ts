/**
 * What HTTP clients leave unread, bounded across the server: plain JSON answers, finished event
 * streams, and event streams still open. An answer is written whole (up to `--max-message`); what
 * the client's socket has not taken waits in the server until it does. Without a bound, every
 * connection (up to `--max-connections`) could hold one answer: 30 loopback clients that never
 * read took the server from 98 MB to 1.5 GB. An open SSE stream was bounded alone (each up to
 * `maxPendingBytes`), so N clients that asked for streams and read none held N × 128 MiB.
 *
 * The unread bytes of all of them are added up whenever an answer is written or a stream's event
 * leaves bytes unsent; past `maxPendingBytes`, finished answers waiting longest go first (never
 * the one just written), then the open stream holding the most unread bytes (the slowest
 * reader, which may be the one writing): each is dropped with its connection (an open stream's
 * call is cancelled), and the server log says so. A client that reads is unaffected.
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
  // Insertion order is the order answers were written: the first is the one waiting longest.
  const waiting = new Map<ServerResponse, string>();
  const streams = new Map<ServerResponse, string>();
  const held = (): number => {
    let total = 0;
    for (const answer of waiting.keys()) total += answer.writableLength;
    for (const open of streams.keys()) total += open.writableLength;
    return total;
  };
  /** Drops what waits until the total is within the bound; `keep` (an answer just written) is never dropped. */
  const enforce = (keep?: ServerResponse): void => {
    let total = held();
    for (const [answer, served] of waiting) {
      if (total <= maxPendingBytes) return;
      if (answer === keep) continue;
      total -= answer.writableLength;
      waiting.delete(answer);
      log(`${served}: an answer was dropped with its connection: ${answer.writableLength} bytes of it were still unread while answers waiting for their clients passed ${maxPendingBytes} bytes (maxPendingBytes); a client must read what it asked for.`);
      answer.destroy();
    }
    while (total > maxPendingBytes && streams.size > 0) {
      let slowest: ServerResponse | undefined;
      for (const open of streams.keys()) if (!slowest || open.writableLength > slowest.writableLength) slowest = open;
      if (!slowest || slowest.writableLength === 0) return;
      const served = streams.get(slowest);
      total -= slowest.writableLength;
      streams.delete(slowest);
      log(`${served}: an event stream was dropped: ${slowest.writableLength} bytes of its events were waiting to be read while the events and answers HTTP clients left unread passed ${maxPendingBytes} bytes across the server (maxPendingBytes); a client must read what it asked for. Its call is cancelled.`);
      slowest.destroy();
    }
  };
  return {
    add(res, extension) {
      streams.delete(res);
      if (res.writableFinished || res.destroyed) return;
      waiting.set(res, extension);
      const done = (): boolean => waiting.delete(res);
      res.once('finish', done).once('close', done);
      enforce(res);
    },
    stream(res, extension) {
      if (res.destroyed) return () => undefined;
      streams.set(res, extension);
      res.once('close', () => streams.delete(res));
      // Only an event its client has not taken adds to what the server holds.
      return () => {
        if (streams.has(res) && res.writableLength > 0) enforce();
      };
    },
  };
}
