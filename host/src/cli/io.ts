/**
 * Where the CLI writes, injectable so tests can capture output without a child process. Every
 * line goes through the run's redactor, so a secret value an extension resolved is replaced
 * wherever the CLI prints it (file lists, --json, errors, diagnostics, logs), whatever path
 * carried it there; files on disk keep their real names.
 */
import { createRedactor } from '../registry/redact.ts';
import type { Redactor } from '../registry/redact.ts';

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
  /** The run's secret values: resolved values are added here, and scrubbed from every line. */
  readonly redactor: Redactor;
}

/** The real process streams. */
export function processIo(): Io {
  const redactor = createRedactor();
  return {
    out: (line) => process.stdout.write(`${redactor.scrub(line)}\n`),
    err: (line) => process.stderr.write(`${redactor.scrub(line)}\n`),
    isTty: Boolean(process.stderr.isTTY),
    verbose: false,
    cwd: process.cwd(),
    redactor,
  };
}

/** An Io that records lines, for tests. */
export function captureIo(cwd = process.cwd()): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const redactor = createRedactor();
  return { stdout, stderr, out: (l) => stdout.push(redactor.scrub(l)), err: (l) => stderr.push(redactor.scrub(l)), isTty: false, verbose: false, cwd, redactor };
}
