/**
 * One soak client connection to a served host's Unix socket, written as a client in another
 * language would be (lines of JSON): requests with a deadline of their own, so a call the server
 * never answers is counted instead of hanging the soak, and an abrupt `destroy()`.
 */
import { connect, type Socket } from 'node:net';
import { createLineClient, type LineClient } from '../../host/src/serve/testing/line-client.ts';
import type { JsonRpcMessage } from '../../host/src/transport/types.ts';

/** A response, or `unanswered` when none came within the deadline or before the server hung up. */
export type Answer = JsonRpcMessage | 'unanswered';

/** A connected client; see {@link connectSoakClient}. */
export interface SoakClient {
  /** Send a request; resolves with its response, or `unanswered` after `deadlineMs` or on disconnect. */
  request(method: string, params: unknown, deadlineMs?: number): { id: number; answer: Promise<Answer> };
  notify(method: string, params: unknown): void;
  /** Resolves with the first notification `predicate` accepts (or undefined when the connection ends). */
  next(predicate: (message: JsonRpcMessage) => boolean): Promise<JsonRpcMessage | undefined>;
  /** Close cleanly (end of input) and wait for the server to hang up. */
  close(): Promise<void>;
  /** Drop the connection without a word, with whatever is in flight. */
  destroy(): void;
}

const DEFAULT_DEADLINE_MS = 30_000;

/** Connects to `path`. */
export function connectSoakClient(path: string): Promise<SoakClient> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(path);
    let ended = false;
    const endWaiters = new Set<() => void>();
    const client: LineClient = createLineClient((bytes) => {
      if (!ended) socket.write(bytes);
    });
    // Only what is still awaited is kept: a soak client lives for many calls.
    socket.on('data', (chunk: Buffer) => {
      client.push(chunk);
      client.seen.length = 0;
    });
    socket.on('error', () => undefined); // reported as the 'close' that always follows
    socket.on('close', () => {
      ended = true;
      for (const waiter of [...endWaiters]) waiter();
    });
    let nextId = 1;
    const untilEnd = (): Promise<undefined> =>
      new Promise((done) => {
        if (ended) return done(undefined);
        endWaiters.add(() => done(undefined));
      });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve({
        request(method, params, deadlineMs = DEFAULT_DEADLINE_MS) {
          const id = nextId++;
          let timer: ReturnType<typeof setTimeout> | undefined;
          const answer = Promise.race<Answer>([
            client.request(id, method, params),
            untilEnd().then(() => 'unanswered' as const),
            new Promise<'unanswered'>((done) => (timer = setTimeout(() => done('unanswered'), deadlineMs))),
          ]).finally(() => clearTimeout(timer));
          return { id, answer };
        },
        notify(method, params) {
          client.notify(method, params);
        },
        next(predicate) {
          return Promise.race([client.next(predicate), untilEnd()]);
        },
        async close() {
          const gone = untilEnd();
          socket.end();
          await gone;
        },
        destroy() {
          socket.destroy();
        },
      });
    });
  });
}
