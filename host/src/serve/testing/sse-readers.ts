/**
 * Test support: many clients of `mep serve --http` that ask for event streams (SSE) and read
 * them slowly, or not at all, on raw loopback sockets. Used by the short seeded soak in
 * `npm test` (`http-sse-soak.test.ts`) and its long form in `npm run hostile`
 * (`scripts/hostile/sse-readers.ts`).
 */
import { connect, type Socket } from 'node:net';
import type { SeededRandom } from '../../../../fixtures/testing/random.ts';

/** How a client reads its stream: not after the first bytes (`stall`), or in drips with pauses (`drip`). */
export type ReaderRole = 'stall' | 'drip';

/** What one reader got by the end. */
export interface ReaderOutcome {
  role: ReaderRole;
  /** Bytes read, head included. */
  bytes: number;
  /** The server closed the connection before the stream's last chunk. */
  cut: boolean;
  /** The stream's last chunk came (a whole answer). */
  whole: boolean;
  /** The answer event's text, when it came. */
  answer: boolean;
}

/** A reader started by {@link startSseReader}: `done` settles once it is whole, cut, or `stop()`ped. */
export interface SseReader {
  readonly role: ReaderRole;
  readonly done: Promise<ReaderOutcome>;
  /**
   * Read everything from now on, and settle within `ms`: whole, cut (the server closed it; a
   * stalled socket sees that only once it reads), or still open after `ms`.
   */
  settleWithin(ms: number): Promise<ReaderOutcome>;
}

const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');

/**
 * Posts `body` to `/extensions/<route>` asking for `text/event-stream`, then reads as `role`
 * says: a `drip` reader takes what came, pauses up to `maxPauseMs` (chosen by `random`), and
 * again; a `stall` reader stops after the first bytes. An empty `route` posts to `/` (a server of one extension).
 */
export function startSseReader(options: { port: number; route: string; body: string; role: ReaderRole; random: SeededRandom; maxPauseMs: number }): SseReader {
  const { port, route, body, role, random, maxPauseMs } = options;
  const socket: Socket = connect(port, '127.0.0.1');
  let bytes = 0;
  let tail = Buffer.alloc(0);
  let answer = false;
  let timer: NodeJS.Timeout | undefined;
  let settle!: (outcome: ReaderOutcome) => void;
  const done = new Promise<ReaderOutcome>((resolve) => (settle = resolve));
  let settled = false;
  let reading = false;
  const finish = (cut: boolean, whole: boolean): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    socket.destroy();
    settle({ role, bytes, cut, whole, answer });
  };
  socket.once('connect', () => {
    socket.write(`POST ${route === '' ? '/' : `/extensions/${route}`} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    const joined = Buffer.concat([tail, chunk]);
    if (!answer && /"streamedArtifacts"/.test(joined.toString('latin1'))) answer = true;
    tail = joined.subarray(-64);
    if (tail.subarray(-LAST_CHUNK.length).equals(LAST_CHUNK)) return finish(false, true);
    if (reading) return;
    if (role === 'stall') return void socket.pause();
    const pause = random.int(maxPauseMs + 1);
    if (pause === 0) return;
    socket.pause();
    timer = setTimeout(() => socket.resume(), pause);
  });
  socket.once('close', () => finish(true, false));
  socket.once('error', () => finish(true, false));
  return {
    role,
    done,
    settleWithin: (ms) => {
      reading = true;
      clearTimeout(timer);
      socket.resume();
      const limit = setTimeout(() => finish(false, false), ms);
      return done.finally(() => clearTimeout(limit));
    },
  };
}
