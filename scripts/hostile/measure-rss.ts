/**
 * The RSS measurement of the hostile floods (flood.ts, stream-flood.ts): the process's RSS after
 * a settled GC (run with --expose-gc) before `run`, and its highest value sampled every 5 ms
 * while `run` goes on.
 */

/** What one measured run gives. */
export interface MeasuredRun {
  /** How it ended: 'answered', or the error code. */
  outcome: string;
  /** RSS after a GC before the run, and the highest RSS sampled during it (bytes). */
  baselineRss: number;
  peakRss: number;
  elapsedMs: number;
}

/** Measures `run`, which resolves with its outcome. */
export async function measureRss(run: () => Promise<string>): Promise<MeasuredRun> {
  const gc = (globalThis as { gc?: () => void }).gc;
  // A warm engine and a settled heap: what the run adds is measured against this.
  for (let round = 0; round < 3; round++) gc?.();
  const baselineRss = process.memoryUsage.rss();
  let peakRss = baselineRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 5);
  const started = performance.now();
  let outcome: string;
  try {
    outcome = await run();
  } finally {
    clearInterval(sampler);
  }
  const elapsedMs = performance.now() - started;
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  return { outcome, baselineRss, peakRss, elapsedMs };
}
