/**
 * Writing lines to one of the process's output streams without ever crashing `mep` and without
 * holding more than a bound in memory. A stream to a pipe is asynchronous in Node: everything
 * written to a reader that does not keep up waits in memory (an extension's 1 GiB log took
 * `mep --verbose` to 2.8 GB), and a reader that goes away turns the next write into an EPIPE (or
 * ENOBUFS) error event that kills the process unless it is handled.
 *
 * - The command's own lines (results, errors) are always written: they are small.
 * - An extension's log lines are written while less than {@link DEFAULT_LOG_CAP_BYTES} wait;
 *   past that they are dropped and counted, and once the stream drains a note says how many
 *   bytes were dropped. Above {@link DEFAULT_HIGH_WATER_BYTES} the writer is `busy`, which a
 *   process extension's stderr forwarding obeys by pausing (the extension then waits), so only
 *   sources that cannot wait (a wasm guest's notifications) reach the cap.
 * - A stream error (the reader left: EPIPE, ENOBUFS, EBADF) ends writing to that stream; the
 *   command goes on and exits as it would have. Any other error (a full disk: ENOSPC, EIO,
 *   EFBIG) ends writing too, and is kept ({@link StreamWriter.lost}): the output is incomplete,
 *   so the command must not report success (main.ts).
 */

/** Errors of a reader that left: the output was not lost, nobody wanted the rest of it. */
const READER_LEFT = new Set(['EPIPE', 'ECONNRESET', 'ENOBUFS', 'EBADF', 'ERR_STREAM_DESTROYED']);

/** Above this many bytes waiting, the writer is busy (producers that can wait should). */
export const DEFAULT_HIGH_WATER_BYTES = 1024 * 1024;
/** Above this many bytes waiting, log lines are dropped (counted) until the stream drains. */
export const DEFAULT_LOG_CAP_BYTES = 4 * 1024 * 1024;

/** The part of a Node writable stream the writer uses. */
export interface WritableLike {
  write(chunk: string | Uint8Array): boolean;
  readonly writableLength: number;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'drain', listener: () => void): unknown;
}

/** Options of {@link createStreamWriter}. */
export interface StreamWriterOptions {
  highWaterBytes?: number;
  logCapBytes?: number;
  /** The note written after dropping `bytes` bytes of log. */
  droppedNote?: (bytes: number) => string;
}

/** A bounded, crash-proof line writer over one stream. */
export interface StreamWriter {
  /** Writes a line of the command's own (never dropped). */
  line(text: string): void;
  /** Writes text of the command's own as it is, without a line end (never dropped). */
  text(chunk: string): void;
  /** Writes bytes of the command's own as they are (never dropped). */
  bytes(chunk: Uint8Array): void;
  /**
   * Writes a line of an extension's log (ended by `end`, a line feed unless told: a status line
   * is redrawn in place), or drops it while the reader is too far behind.
   */
  log(text: string, end?: string): void;
  /** True while more than the high-water mark waits. */
  busy(): boolean;
  /** Calls `listener` once the stream drains (at once when it is not busy, or failed). */
  onDrain(listener: () => void): void;
  /** Bytes of log dropped so far. */
  readonly dropped: number;
  /** The stream failed (its reader left); nothing more is written to it. */
  readonly failed: boolean;
  /** The code of a failure that lost output (ENOSPC, EIO: not a reader that left), or undefined. */
  readonly lost: string | undefined;
}

/**
 * Wraps `stream`; installs its 'error' handler.
 *
 * @example
 * const err = createStreamWriter(process.stderr);
 * err.log(`[ext] ${line}`);
 */
export function createStreamWriter(stream: WritableLike, options: StreamWriterOptions = {}): StreamWriter {
  const highWater = options.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES;
  const cap = options.logCapBytes ?? DEFAULT_LOG_CAP_BYTES;
  const note = options.droppedNote ?? ((bytes: number) => `mep: ${bytes} bytes of extension log dropped: stderr was not read fast enough`);
  let failed = false;
  let lost: string | undefined;
  let dropped = 0;
  /** Dropped since the last note. */
  let unreported = 0;
  let drainArmed = false;
  const waiting = new Set<() => void>();

  // The reader left (EPIPE), or the stream cannot take more (ENOBUFS, EBADF): stop writing to it.
  const fail = (error: unknown): void => {
    failed = true;
    const code = (error as { code?: unknown } | undefined)?.code;
    if (lost === undefined && !READER_LEFT.has(String(code))) lost = typeof code === 'string' ? code : 'EIO';
  };
  stream.on('error', (error) => {
    fail(error);
    for (const listener of [...waiting]) listener();
    waiting.clear();
  });

  const write = (chunk: string | Uint8Array): void => {
    if (failed) return;
    try {
      stream.write(chunk);
    } catch (error) {
      // A synchronous stream (file, terminal) may throw instead of emitting: the same failure.
      fail(error);
    }
  };
  const armDrain = (): void => {
    if (drainArmed || failed) return;
    drainArmed = true;
    stream.once('drain', () => {
      drainArmed = false;
      if (unreported > 0) {
        const bytes = unreported;
        unreported = 0;
        write(`${note(bytes)}\n`);
      }
      for (const listener of [...waiting]) listener();
      waiting.clear();
    });
  };

  return {
    line: (text) => write(`${text}\n`),
    text: (chunk) => write(chunk),
    bytes: (chunk) => write(chunk),
    log(text, end = '\n') {
      if (failed) return;
      if (stream.writableLength > cap) {
        const bytes = Buffer.byteLength(text) + end.length;
        dropped += bytes;
        unreported += bytes;
        armDrain();
        return;
      }
      write(`${text}${end}`);
    },
    busy: () => !failed && stream.writableLength > highWater,
    onDrain(listener) {
      if (failed || stream.writableLength <= highWater) return listener();
      waiting.add(listener);
      armDrain();
    },
    get dropped() {
      return dropped;
    },
    get failed() {
      return failed;
    },
    get lost() {
      return lost;
    },
  };
}
