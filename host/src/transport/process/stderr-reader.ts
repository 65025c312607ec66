/**
 * The child's stderr, its log channel (MEP 0.1): read as it comes and passed to the log sink line
 * by line (a line is at most 16 K characters), and kept for the crash report. While a sink says
 * it is busy, stderr is not read, so the extension waits on its writes.
 */
import type { Readable } from 'node:stream';
import { createLineSplitter } from '../../framing/line-splitter.ts';
import { createStderrRecord, type StderrRecord } from '../stderr-record.ts';
import type { LogSink } from '../types.ts';
import { createHeapTraceReader, type HeapTraceReader } from './v8-heap.ts';

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
  stream.on('data', (chunk: Buffer) => {
    for (const line of lines.push(chunk)) logLine(line);
    // Back-pressure: the sink's consumer is behind, so stop reading until it drains.
    if (log?.busy?.() && !stream.isPaused()) {
      stream.pause();
      log.onDrain?.(() => stream.resume());
    }
  });
  return {
    record,
    heap,
    logLine,
    flush() {
      for (const line of lines.flush()) logLine(line);
    },
  };
}
