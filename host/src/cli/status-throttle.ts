/**
 * The status line drawn at most once per interval: an extension may report progress a million
 * times a call (each within its notification budget), and a terminal that keeps up would be
 * sent every redraw (a million lines of escape sequences). Reports between two draws are
 * coalesced into the latest, drawn at the end of the interval; the last (`done`) is drawn at once,
 * and nothing is drawn after `stop()`.
 */
import { HOST_BOUNDS } from '../protocol/limits.ts';

/** See the file's comment. */
export interface StatusThrottle {
  /** A report: `text()` is asked for only when it is drawn. */
  show(text: () => string, done: boolean): void;
  /** Drops a pending redraw. */
  stop(): void;
}

/** A {@link StatusThrottle} drawing through `draw` at most once per `intervalMs` (default `HOST_BOUNDS.statusIntervalMs`). */
export function createStatusThrottle(draw: (text: string, done: boolean) => void, intervalMs: number = HOST_BOUNDS.statusIntervalMs): StatusThrottle {
  let last = -Infinity;
  let pending: (() => string) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    timer = undefined;
    if (pending === undefined) return;
    const text = pending;
    pending = undefined;
    last = performance.now();
    draw(text(), false);
  };
  return {
    show(text, done) {
      const now = performance.now();
      if (done || now - last >= intervalMs) {
        clearTimeout(timer);
        timer = undefined;
        pending = undefined;
        last = now;
        draw(text(), done);
        return;
      }
      pending = text;
      if (timer === undefined) {
        timer = setTimeout(flush, intervalMs - (now - last));
        timer.unref?.();
      }
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}
