/**
 * How an extension's log reaches a `mep` user. By default its warnings and errors are printed on
 * stderr, each prefixed with the extension's name (`acme.avro: warning: …`): a guest that reads
 * the clock without the grant, a rejection nothing handled, a timer that threw. `info` and
 * `debug` lines only with `--verbose`, then every line as `[name level] …`. stdout stays the
 * command's own output (`--json` included). Both channels feed it: `morphir.log` notifications
 * (the PDK's `ctx.log` and, in a process extension, `console`) and the transport's log sink (a
 * wasm guest's `console` through Extism's log functions, a process's stderr lines, the runtime's
 * own notes). Secret values are scrubbed first; io.ts makes every line safe for a terminal, and
 * the name is shown quoted when it is not a plain id or is one of `mep`'s own prefixes
 * (`"mep": warning: …`). Every line goes through `io.log`, the bounded writer: while stderr is read slower than the extension logs, the sink says it is busy (a
 * process's stderr is paused: back-pressure) and what cannot wait is dropped with a counted note.
 */
import type { LogLevel, LogParams } from '../protocol/index.ts';
import type { Redactor } from '../registry/redact.ts';
import type { LogSink } from '../transport/types.ts';
import type { Io } from './io.ts';
import { extensionLabel } from './terminal-text.ts';

/** The two feeds of one session's log. */
export interface ExtensionLogPrinter {
  /** For `session.onLog` (`morphir.log`). */
  onSessionLog(log: LogParams): void;
  /** For `openTransport(spec, sink)`. */
  sink: LogSink;
}

const SHOWN_BY_DEFAULT: Readonly<Record<LogLevel, string | undefined>> = { error: 'error', warn: 'warning', info: undefined, debug: undefined };

/**
 * Prints the log of the extension named by `name()` (asked at each line: the id once the session
 * knows it) on `io.err`.
 *
 * @example
 * const log = createExtensionLogPrinter(io, () => session.extension, redactor);
 * const transport = await openTransport(spec, log.sink);
 */
export function createExtensionLogPrinter(io: Io, name: () => string, redactor: Redactor): ExtensionLogPrinter {
  const print = (level: LogLevel, message: string): void => {
    // The message is scrubbed as the line the extension wrote, before a prefix is put in front
    // of it: a part of a secret at its start is the rest of one cut across lines (redact.ts).
    // The name as a plain id, or quoted: a guest calling itself `mep` never prints `mep: …`.
    if (io.verbose) {
      io.log(`[${extensionLabel(redactor.scrub(name()))} ${level}] ${redactor.scrub(message)}`);
      return;
    }
    const label = SHOWN_BY_DEFAULT[level];
    if (label) io.log(`${extensionLabel(redactor.scrub(name()))}: ${label}: ${redactor.scrub(message)}`);
  };
  const sink: LogSink = Object.assign((entry: Parameters<LogSink>[0]) => print(entry.level, entry.message), { busy: io.logBusy, onDrain: io.onLogDrain });
  return { onSessionLog: (log) => print(log.level, log.message), sink };
}
