/**
 * Where the CLI writes, injectable so tests can capture output without a child process. Every
 * line goes through the run's redactor, so a secret value an extension resolved is replaced
 * wherever the CLI prints it (file lists, --json, errors, diagnostics, logs), whatever path
 * carried it there; files on disk keep their real names. Then through terminal-text.ts, so
 * nothing an extension shaped is obeyed by the terminal (escapes, controls, bidi) or starts a
 * line that reads as `mep`'s own. Both happen here, in {@link createIo}, which the real streams
 * and the test capture share, so no renderer can skip them.
 */
import { createRedactor } from '../registry/redact.ts';
import type { Redactor } from '../registry/redact.ts';
import { jsonChunks } from '../framing/json-chunks.ts';
import { safeText } from '../framing/safe-text.ts';
import { HOST_BOUNDS } from '../protocol/limits.ts';
import type { LimitName } from '../protocol/limits.ts';
import { readStreamBounded } from '../files/bounded-stream.ts';
import { createStreamWriter } from './stream-writer.ts';
import { clipLines, clipText, terminalLines } from './terminal-text.ts';

/** Output channels of one CLI run. */
export interface Io {
  /** A line of the command's result (stdout). */
  out(line: string): void;
  /**
   * A JSON value as the command's result (stdout, `--json`), redacted, indented and written in
   * chunks as fast as stdout is read (framing/json-chunks.ts): never built as one string, so no
   * size or shape of what an extension returned can fail it or make it hold more than a chunk.
   */
  json(value: unknown): Promise<void>;
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
  /**
   * The one status line of a terminal (progress): drawn over the last one, cut to
   * `HOST_BOUNDS.maxStatusChars` (a longer one would wrap, and could not be redrawn); `done` ends
   * it. Dropped, like a log line, while stderr lags.
   */
  status(text: string, done: boolean): void;
  /** Bytes to stdout as they are (`mep call --raw`); escaped like text when stdout is a terminal. */
  outBytes(bytes: Uint8Array): void;
  /** All of stdin (`mep call --raw` without --input, `@-`) up to `maxBytes`; more is ERR_LIMIT naming `limit`, unread. */
  readStdin(maxBytes: number, limit: LimitName): Promise<Uint8Array>;
  /** True when stderr is a terminal (progress is drawn only then). */
  readonly isTty: boolean;
  /** Set by `--verbose`. */
  verbose: boolean;
  /** Current working directory for relative paths. */
  readonly cwd: string;
  /** The run's secret values: resolved values are added here, and scrubbed from every line. */
  readonly redactor: Redactor;
  /**
   * The code of a failure that lost part of stdout (ENOSPC, EIO; a reader that left is none), or
   * undefined; after the last write's error had its turn (a file's arrives on the next tick).
   */
  stdoutLost?(): Promise<string | undefined>;
}

/** Where {@link createIo} writes lines that are already redacted and made safe. */
interface Channels {
  out(text: string): void;
  /** The chunks of one JSON text of the result, written as the reader takes them, then a line end. */
  outJson(chunks: Iterable<string>): Promise<void>;
  err(text: string): void;
  log(text: string): void;
  status(text: string, done: boolean): void;
  outBytes(bytes: Uint8Array): void;
}

/** An Io over `channels`: every line redacted, then made safe for a terminal (terminal-text.ts). */
function createIo(channels: Channels, rest: Omit<Io, 'out' | 'json' | 'err' | 'log' | 'status' | 'outBytes' | 'redactor'>): Io {
  const redactor = createRedactor();
  const safe = (line: string): string => clipLines(terminalLines(redactor.scrub(line)), HOST_BOUNDS.maxLineChars);
  return {
    out: (line) => channels.out(safe(line)),
    async json(value) {
      await channels.outJson(jsonChunks(redactor.scrubValue(value), { indent: 2 }));
    },
    err: (line) => channels.err(safe(line)),
    log: (line) => channels.log(safe(line)),
    status: (text, done) => channels.status(clipText(safe(text).replace(/\n\s*/g, ' '), HOST_BOUNDS.maxStatusChars), done),
    outBytes: (bytes) => channels.outBytes(bytes),
    ...rest,
    redactor,
  };
}

const utf8 = new TextDecoder();

/**
 * The real process streams, written through bounded writers that never throw (stream-writer.ts):
 * a reader that leaves (EPIPE) or falls behind cannot crash `mep` or fill its memory.
 */
export function processIo(): Io {
  const stdout = createStreamWriter(process.stdout);
  const stderr = createStreamWriter(process.stderr);
  return createIo(
    {
      out: stdout.line,
      async outJson(chunks) {
        for (const chunk of chunks) {
          stdout.text(chunk);
          if (stdout.busy()) await new Promise<void>((resolve) => stdout.onDrain(resolve));
        }
        stdout.text('\n');
      },
      err: stderr.line,
      log: stderr.log,
      // \r and "erase line" are mep's own, around text made safe: the status line is redrawn in place.
      status: (text, done) => stderr.log(`\r\x1b[2K${text}`, done ? '\n' : ''),
      // Raw bytes of `mep call --raw`: as they are into a pipe or file; on a terminal, shown and
      // not obeyed, like every other line (no session: no secret was ever resolved into them).
      outBytes: (bytes) => (process.stdout.isTTY ? stdout.bytes(Buffer.from(safeText(utf8.decode(bytes)))) : stdout.bytes(bytes)),
    },
    {
      logBusy: stderr.busy,
      onLogDrain: stderr.onDrain,
      readStdin: (maxBytes, limit) => readStreamBounded(process.stdin, { what: 'stdin', maxBytes, limit }),
      isTty: Boolean(process.stderr.isTTY),
      verbose: false,
      cwd: process.cwd(),
      stdoutLost: () => new Promise((resolve) => setImmediate(() => resolve(stdout.lost))),
    },
  );
}

/** An Io that records lines (and raw bytes) and reads `stdin` as its standard input, for tests; `isTty` draws progress. */
export function captureIo(cwd = process.cwd(), stdin: Uint8Array = new Uint8Array(0), options: { isTty?: boolean } = {}): Io & { stdout: string[]; stderr: string[]; shown: string[]; bytes: Uint8Array[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const shown: string[] = [];
  const bytes: Uint8Array[] = [];
  const io = createIo(
    { out: (l) => stdout.push(l), outJson: async (chunks) => void stdout.push([...chunks].join('')), err: (l) => stderr.push(l), log: (l) => stderr.push(l), status: (l) => shown.push(l), outBytes: (b) => bytes.push(b) },
    { logBusy: () => false, onLogDrain: (listener) => listener(), readStdin: (maxBytes, limit) => readStreamBounded([stdin], { what: 'stdin', maxBytes, limit }), isTty: options.isTty ?? false, verbose: false, cwd },
  );
  return Object.assign(io, { stdout, stderr, shown, bytes });
}
