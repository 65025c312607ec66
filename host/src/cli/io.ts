/** Where the CLI writes, injectable so tests can capture output without a child process. */
import { createStreamWriter } from './stream-writer.ts';

/** Output channels of one CLI run. */
export interface Io {
  /** A line of the command's result (stdout). */
  out(line: string): void;
  /** A line for people: errors, warnings, notes (stderr). */
  err(line: string): void;
  /**
   * A line of an extension's log (stderr, with `--verbose`): may be dropped, and counted in a
   * note, while stderr is not read fast enough; never holds more than a bound in memory.
   */
  log(line: string): void;
  /** True while log lines wait to be written past the high-water mark (producers that can, pause). */
  logBusy(): boolean;
  /** Calls `listener` once waiting log lines are written (at once when none wait). */
  onLogDrain(listener: () => void): void;
  /** True when stderr is a terminal (progress is drawn only then). */
  readonly isTty: boolean;
  /** Set by `--verbose`. */
  verbose: boolean;
  /** Current working directory for relative paths. */
  readonly cwd: string;
}

/**
 * The real process streams, written through bounded writers that never throw (stream-writer.ts):
 * a reader that leaves (EPIPE) or falls behind cannot crash `mep` or fill its memory.
 */
export function processIo(): Io {
  const stdout = createStreamWriter(process.stdout);
  const stderr = createStreamWriter(process.stderr);
  return {
    out: stdout.line,
    err: stderr.line,
    log: stderr.log,
    logBusy: stderr.busy,
    onLogDrain: stderr.onDrain,
    isTty: Boolean(process.stderr.isTTY),
    verbose: false,
    cwd: process.cwd(),
  };
}

/** An Io that records lines, for tests. */
export function captureIo(cwd = process.cwd()): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (l) => stdout.push(l),
    err: (l) => stderr.push(l),
    log: (l) => stderr.push(l),
    logBusy: () => false,
    onLogDrain: (listener) => listener(),
    isTty: false,
    verbose: false,
    cwd,
  };
}
