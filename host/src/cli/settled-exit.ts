/**
 * The end of a command (issue 32). When `main` has returned, a natural exit waits for nothing more
 * than what the event loop still holds, then tears the runtime down: V8's heap freed page by page,
 * 15–30 ms of a small project's `mep compile` on this machine after its IR was written. When the
 * loop holds nothing but stdout's and stderr's own handles, and both have handed every byte to the
 * OS, nothing is left to wait for: the process ends at once (`process.exit`, which still runs the
 * `exit` listeners: temporary files removed, extensions' process groups ended).
 *
 * Anything else keeps the natural exit: a file write, a read or a stat under way (a `FSReq…` or
 * `FileHandle`), a child process, a socket, a ref'd timer, port or worker, a stdin opened, bytes
 * still queued on a stream (a pipe that was full, or a platform whose pipes write asynchronously),
 * a `beforeExit` listener (which `process.exit` would skip).
 */
import { Socket } from 'node:net';

/** The handle types of a standard stream that is a pipe or a terminal. */
const STDIO_HANDLES = new Set(['PipeWrap', 'TTYWrap']);

/** What {@link settledForExit} looks at; the process's own by default. */
export interface ExitState {
  /** `process.getActiveResourcesInfo()`: what keeps the event loop alive. */
  resources: readonly string[];
  /** stdout and stderr. */
  streams: readonly NodeJS.WritableStream[];
  /** `process.listenerCount('beforeExit')`. */
  beforeExitListeners: number;
}

/** The process's {@link ExitState} now. */
export function processExitState(): ExitState {
  return { resources: process.getActiveResourcesInfo(), streams: [process.stdout, process.stderr], beforeExitListeners: process.listenerCount('beforeExit') };
}

/**
 * True when nothing but the standard streams keeps the process alive and they hold no bytes: a
 * natural exit would then end it too, only later. A stream on a pipe or a terminal is one handle
 * (a `Socket`); one on a file writes synchronously and has none.
 */
export function settledForExit(state: ExitState = processExitState()): boolean {
  if (state.beforeExitListeners > 0) return false;
  if (state.streams.some((stream) => ((stream as { writableLength?: number }).writableLength ?? 0) > 0)) return false;
  const stdioHandles = state.streams.filter((stream) => stream instanceof Socket).length;
  const others = state.resources.filter((resource) => !STDIO_HANDLES.has(resource));
  return others.length === 0 && state.resources.length <= stdioHandles;
}

/** Ends the process with `code` at once when {@link settledForExit}; otherwise sets it for the natural exit. */
export function exitWhenSettled(code: number): void {
  process.exitCode = code;
  if (settledForExit()) process.exit(code);
}
