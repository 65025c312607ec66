/**
 * Plain JSON answers that HTTP clients leave unread, bounded across the server. An answer is
 * written whole (up to `--max-message`); what the client's socket has not taken waits in the
 * server until it does. Without a bound, every connection (up to `--max-connections`) could hold
 * one answer: 30 loopback clients that never read took the server from 98 MB to 1.5 GB. The
 * unread bytes of all answers are added up whenever one is written; past `maxPendingBytes`, the
 * answers waiting longest (never the one just written) are dropped with their connections,
 * oldest first, and the server log says so. A client that reads its answer is unaffected.
 */
import type { ServerResponse } from 'node:http';

/** The server's answers still waiting for their clients; see the module comment. */
export interface UnreadAnswers {
  /** Counts `res`, just ended with its answer, until its client has taken it. */
  add(res: ServerResponse, extension: string): void;
}

/**
 * @example
 * const unread = createUnreadAnswers(limits.maxPendingBytes, (line) => server.log(line));
 * res.end(text); unread.add(res, extension);
 */
export function createUnreadAnswers(maxPendingBytes: number, log: (line: string) => void): UnreadAnswers {
  // Insertion order is the order answers were written: the first is the one waiting longest.
  const waiting = new Map<ServerResponse, string>();
  return {
    add(res, extension) {
      if (res.writableFinished || res.destroyed) return;
      waiting.set(res, extension);
      const done = (): boolean => waiting.delete(res);
      res.once('finish', done).once('close', done);
      let total = 0;
      for (const answer of waiting.keys()) total += answer.writableLength;
      for (const [answer, served] of waiting) {
        if (total <= maxPendingBytes || answer === res) break;
        total -= answer.writableLength;
        waiting.delete(answer);
        log(`${served}: an answer was dropped with its connection: ${answer.writableLength} bytes of it were still unread while answers waiting for their clients passed ${maxPendingBytes} bytes (maxPendingBytes); a client must read what it asked for.`);
        answer.destroy();
      }
    },
  };
}
