/**
 * The child's stderr, its log channel (MEP 0.1): read as it comes and passed to the log sink line
 * by line (a line is at most 16 K characters), and kept for the crash report. While a sink says
 * it is busy, stderr is not read, so the extension waits on its writes.
 *
 * What an extension wrote before it exited is passed on even when the sink was busy then: the
 * pipe is let go of (teardown.ts) only once stderr {@link StderrReader.settle}s — it ended, or
 * it stayed open (a process the extension left holds it) through a grace that runs only while
 * stderr is read, or {@link AFTER_EXIT_BYTES} more came after the extension's exit. A slow
 * reader of `mep`'s stderr delays the end; it no longer loses the last lines (a clean-clone CI
 * run lost 100 KB of a 64 MiB flood that way).
 */
import type { Readable } from 'node:stream';
import { createLineSplitter } from '../../framing/line-splitter.ts';
import { createStderrRecord, type StderrRecord } from '../stderr-record.ts';
import type { LogSink } from '../types.ts';
import { createHeapTraceReader, type HeapTraceReader } from './v8-heap.ts';

/**
 * Past this many bytes read after the extension's exit, stderr is not waited for: a pipe holds
 * at most 1 MiB on Linux (fs.pipe-max-size) and the stream's buffer 64 KiB, so what comes after
 * is written by a process the extension left behind.
 */
export const AFTER_EXIT_BYTES = 2 * 1024 * 1024;

/** The stderr side of one transport. */
export interface StderrReader {
  /** What the extension wrote, for crash reports. */
  readonly record: StderrRecord;
  /** V8's last collections, for the advice when a Node.js script ran out of heap. */
  readonly heap: HeapTraceReader;
  /** Logs a line as the extension's (host notes about it too), keeping it in the record. */
  logLine(line: string, level?: 'info' | 'error'): void;
  /** Passes on a last line without its newline (at exit). */
  flush(): void;
  /**
   * Resolves once stderr ended (or was destroyed), or once it stayed open for `graceMs` of time
   * while it was being read (time held by a busy sink does not count), or once
   * {@link AFTER_EXIT_BYTES} more arrived. Call it after the extension exited.
   */
  settle(graceMs: number): Promise<void>;
}

/** Starts reading `stream` for the extension `name` into `log`. */
export function readStderr(name: string, stream: Readable, log: LogSink | undefined): StderrReader {
  const lines = createLineSplitter();
  const record = createStderrRecord();
  const heap = createHeapTraceReader();
  function logLine(line: string, level: 'info' | 'error' = 'info'): void {
    record.push(line);
    heap.see(line);
    try {
      log?.({ level, message: line, source: name });
    } catch {
      // A failing log sink must not break the connection; the line stays in the crash record.
    }
  }
  let held = false;
  /** Set once AFTER_EXIT_BYTES came after the exit: nothing more is read or passed on. */
  let givenUp = false;
  /** Told when stderr is held or let go, and of the bytes read (settle's watchers). */
  const watchers = new Set<(bytes: number) => void>();
  const ended = (): boolean => givenUp || stream.readableEnded || stream.destroyed;
  stream.on('data', (chunk: Buffer) => {
    if (givenUp) return;
    for (const line of lines.push(chunk)) logLine(line);
    // Back-pressure: the sink's consumer is behind, so stop reading until it drains.
    if (log?.busy?.() && !stream.isPaused()) {
      stream.pause();
      held = true;
      log.onDrain?.(() => {
        held = false;
        if (givenUp) return;
        stream.resume();
        for (const watcher of [...watchers]) watcher(0);
      });
    }
    for (const watcher of [...watchers]) watcher(chunk.length);
  });
  const settled = (): void => {
    for (const watcher of [...watchers]) watcher(-1);
  };
  stream.once('end', settled);
  stream.once('close', settled);
  return {
    record,
    heap,
    logLine,
    flush() {
      for (const line of lines.flush()) logLine(line);
    },
    settle(graceMs) {
      if (ended()) return Promise.resolve();
      return new Promise((resolve) => {
        let left = graceMs;
        let since = 0;
        let bytes = 0;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const done = (): void => {
          clearTimeout(timer);
          watchers.delete(watch);
          resolve();
        };
        /** Runs the grace's clock while stderr is read, stops it while it is held. */
        const clock = (): void => {
          if (held && timer !== undefined) {
            clearTimeout(timer);
            timer = undefined;
            left -= performance.now() - since;
          } else if (!held && timer === undefined) {
            since = performance.now();
            timer = setTimeout(done, Math.max(0, left));
          }
        };
        const watch = (read: number): void => {
          bytes += Math.max(0, read);
          if (bytes > AFTER_EXIT_BYTES && !ended()) {
            // Not the extension's: it exited. Read no more; the pipe is let go of next.
            givenUp = true;
            stream.pause();
            try {
              log?.({ level: 'info', message: `stopped reading the stderr of ${name}: a process it left behind holds it and wrote more than ${AFTER_EXIT_BYTES} bytes after its exit`, source: name });
            } catch {
              // A failing log sink changes nothing here.
            }
          }
          if (read < 0 || ended()) done();
          else clock();
        };
        watchers.add(watch);
        clock();
      });
    },
  };
}
