/**
 * The progress bar `mep` draws on a terminal's status line from an extension's
 * `morphir.progress` (MEP 0.1, Cancellation and progress): a bar and a percentage when the
 * extension gives one (a report without one keeps the last), then its message.
 */
import type { ProgressParams } from '../protocol/index.ts';

/** Cells of the bar. */
const WIDTH = 24;

/** Turns each progress notification of one run into the status line to draw. */
export function createProgressBar(): (p: ProgressParams) => string {
  // The last percentage per request: a report with a message only keeps the bar where it was.
  const last = new Map<string | number, number>();
  return (p) => {
    const message = p.message ?? p.kind;
    const given = typeof p.percentage === 'number' && Number.isFinite(p.percentage) ? Math.round(Math.max(0, Math.min(100, p.percentage))) : undefined;
    let pct = given ?? last.get(p.requestId);
    if (p.kind === 'end') {
      // Done is full, unless the extension says otherwise.
      last.delete(p.requestId);
      pct = given ?? 100;
    } else if (pct !== undefined) {
      if (last.size >= 64 && !last.has(p.requestId)) last.clear();
      last.set(p.requestId, pct);
    }
    if (pct === undefined) return message;
    const filled = Math.round((pct / 100) * WIDTH);
    return `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${String(pct).padStart(3)}% ${message}`;
  };
}
