/** Where the CLI writes, injectable so tests can capture output without a child process. */

/** Output channels of one CLI run. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** True when stderr is a terminal (progress is drawn only then). */
  readonly isTty: boolean;
  /** Set by `--verbose`. */
  verbose: boolean;
  /** Current working directory for relative paths. */
  readonly cwd: string;
}

/** The real process streams. */
export function processIo(): Io {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    isTty: Boolean(process.stderr.isTTY),
    verbose: false,
    cwd: process.cwd(),
  };
}

/** An Io that records lines, for tests. */
export function captureIo(cwd = process.cwd()): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l), isTty: false, verbose: false, cwd };
}
