/**
 * Where the CLI writes, injectable so tests can capture output without a child process. Every
 * line goes through the run's redactor, so a secret value an extension resolved is replaced
 * wherever the CLI prints it (file lists, --json, errors, diagnostics, logs), whatever path
 * carried it there; files on disk keep their real names.
 */
import { createRedactor } from '../registry/redact.ts';
import type { Redactor } from '../registry/redact.ts';
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
  /** Bytes to stdout as they are (`mep call --raw`). */
  outBytes(bytes: Uint8Array): void;
  /** All of stdin (`mep call --raw` without --input). */
  readStdin(): Promise<Uint8Array>;
  /** True when stderr is a terminal (progress is drawn only then). */
  readonly isTty: boolean;
  /** Set by `--verbose`. */
  verbose: boolean;
  /** Current working directory for relative paths. */
  readonly cwd: string;
  /** The run's secret values: resolved values are added here, and scrubbed from every line. */
  readonly redactor: Redactor;
}

/**
 * The real process streams, written through bounded writers that never throw (stream-writer.ts):
 * a reader that leaves (EPIPE) or falls behind cannot crash `mep` or fill its memory.
 */
export function processIo(): Io {
  const redactor = createRedactor();
  const stdout = createStreamWriter(process.stdout);
  const stderr = createStreamWriter(process.stderr);
  return {
    out: (line) => stdout.line(redactor.scrub(line)),
    err: (line) => stderr.line(redactor.scrub(line)),
    log: (line) => stderr.log(redactor.scrub(line)),
    logBusy: stderr.busy,
    onLogDrain: stderr.onDrain,
    // Raw bytes of `mep call --raw`: no session, so no secret was ever resolved into them.
    outBytes: (bytes) => stdout.bytes(bytes),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return new Uint8Array(Buffer.concat(chunks));
    },
    isTty: Boolean(process.stderr.isTTY),
    verbose: false,
    cwd: process.cwd(),
    redactor,
  };
}

/** An Io that records lines (and raw bytes) and reads `stdin` as its standard input, for tests. */
export function captureIo(cwd = process.cwd(), stdin: Uint8Array = new Uint8Array(0)): Io & { stdout: string[]; stderr: string[]; bytes: Uint8Array[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const bytes: Uint8Array[] = [];
  const redactor = createRedactor();
  return {
    stdout, stderr, bytes, redactor,
    out: (l) => stdout.push(redactor.scrub(l)),
    err: (l) => stderr.push(redactor.scrub(l)),
    log: (l) => stderr.push(redactor.scrub(l)),
    logBusy: () => false,
    onLogDrain: (listener) => listener(),
    outBytes: (b) => bytes.push(b),
    readStdin: async () => stdin,
    isTty: false, verbose: false, cwd,
  };
}
