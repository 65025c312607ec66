/**
 * Runs one operation in a session for a CLI command: starts the extension, shows progress on a
 * terminal, turns Ctrl+C into `$/cancelRequest` first (a second Ctrl+C stops the extension), and
 * always ends the session, so no child process or instance outlives the command.
 */
import type { ProgressParams } from '../protocol/index.ts';
import { openTransport } from '../registry/launch.ts';
import type { LaunchSpec } from '../registry/launch.ts';
import { createSession } from '../session/session.ts';
import type { Session } from '../session/session.ts';
import type { Io } from './io.ts';

function progressLine(p: ProgressParams): string {
  const pct = p.percentage === undefined ? '' : `${String(p.percentage).padStart(3)}% `;
  return `${pct}${p.message ?? p.kind}`;
}

/**
 * Opens a session on `spec`, runs `fn` with an AbortSignal wired to Ctrl+C, and closes the session.
 *
 * @example
 * const result = await withSession(spec, io, (session, signal) => session.generate(params, { signal }));
 */
export async function withSession<T>(spec: LaunchSpec, io: Io, fn: (session: Session, signal: AbortSignal) => Promise<T>): Promise<T> {
  const started = performance.now();
  const transport = await openTransport(spec, io.verbose ? (e) => io.err(`[${e.source}] ${e.message}`) : undefined);
  const session = createSession({ transport });
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      io.err('Cancelling… (press Ctrl+C again to stop the extension)');
      controller.abort();
    } else {
      void session.close();
    }
  };
  process.on('SIGINT', onSigint);
  const stopProgress = io.isTty
    ? session.onProgress((p) => process.stderr.write(`\r\x1b[2K${progressLine(p)}${p.kind === 'end' ? '\n' : ''}`))
    : () => undefined;
  try {
    const init = await session.start();
    if (io.verbose) {
      io.err(`extension ${init.extension.id} ${init.extension.version} (${init.extension.name}), ${spec.runtime}, protocol ${init.protocolVersion}, started in ${(performance.now() - started).toFixed(1)} ms`);
    }
    const callStarted = performance.now();
    const result = await fn(session, controller.signal);
    if (io.verbose) io.err(`operation took ${(performance.now() - callStarted).toFixed(1)} ms`);
    return result;
  } finally {
    stopProgress();
    process.off('SIGINT', onSigint);
    await session.close();
  }
}
