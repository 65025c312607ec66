/**
 * What `mep` does when it is interrupted. SIGINT, SIGTERM and SIGHUP that nothing else handles
 * end every process extension's group (SIGTERM, then SIGKILL after a second) and exit with
 * 128 + the signal's number, as a shell reports a command killed by it. Without this, Node dies
 * of the signal at once, its 'exit' hooks never run, and an extension (in a group of its own,
 * out of reach of the terminal's Ctrl+C) would outlive `mep`.
 *
 * A command that handles a signal itself owns it while it listens: a session turns the first
 * Ctrl+C into `$/cancelRequest` (with-session.ts), `mep serve` shuts down on SIGINT and SIGTERM.
 * A second signal while the groups are being ended exits at once (the 'exit' hook SIGKILLs them).
 * Helper processes a command starts outside any group (esbuild's service, which `mep build` runs)
 * are stopped through {@link stopAtInterrupt}: Node does not end a child when it exits.
 */
import { endAllProcessGroups } from '../transport/process-group.ts';

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/** How long interrupted extensions get between SIGTERM and SIGKILL. */
const INTERRUPT_GRACE_MS = 1_000;

let installed = false;

/** What to stop when `mep` is interrupted, besides the process groups. */
const stops = new Set<() => unknown>();

/** Has `stop` called (once, errors ignored) if `mep` is interrupted; returns its removal. */
export function stopAtInterrupt(stop: () => unknown): () => void {
  stops.add(stop);
  return () => void stops.delete(stop);
}

function stopAll(): void {
  for (const stop of stops) {
    try {
      void Promise.resolve(stop()).catch(() => undefined);
    } catch {
      // a helper that cannot be stopped is ended by the exit that follows, if at all
    }
  }
  stops.clear();
}

/** Installs the handlers once per process (the `mep` entry does, before any command runs). */
export function installSignalHandling(): void {
  if (installed) return;
  installed = true;
  let ending = false;
  for (const [signal, number] of Object.entries(SIGNALS) as [keyof typeof SIGNALS, number][]) {
    const handler = (): void => {
      if (process.listenerCount(signal) > 1 && !ending) return;
      if (ending) process.exit(128 + number);
      ending = true;
      stopAll();
      void endAllProcessGroups(INTERRUPT_GRACE_MS).finally(() => process.exit(128 + number));
    };
    process.on(signal, handler);
  }
}
