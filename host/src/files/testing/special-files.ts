/**
 * Test support: special files where a regular file is expected (a FIFO, a socket, a device), and
 * a guard that unblocks a FIFO a reader is stuck opening, so a test of unfixed code fails
 * instead of hanging the suite.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** Makes a FIFO at `path` (mkfifo from coreutils). */
export function makeFifo(path: string): void {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path} failed: ${made.stderr}`);
}

/** Listens on a Unix socket at `path`; close the server when done. */
export function makeSocket(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

/** A character device every Linux and macOS has. */
export const DEVICE = '/dev/null';

/**
 * `promise`'s outcome, or `'hung'` when it has not settled within `ms`: then each FIFO in `fifos`
 * is opened for writing and closed, which ends a reader stuck in `open` or `read` with an empty
 * file, so the run goes on.
 */
export async function unlessHung<T>(promise: Promise<T>, fifos: readonly string[], ms = 3000): Promise<T | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  const outcome = await Promise.race([promise, hung]);
  clearTimeout(timer);
  if (outcome === 'hung') {
    for (const fifo of fifos) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader at the FIFO: nothing to unblock there.
      }
    }
    await promise.catch(() => undefined);
  }
  return outcome;
}
