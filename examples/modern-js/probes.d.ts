/** One probe's outcome: its answer, or the name of what it threw. */
export type Outcome = { ok?: unknown; threw?: string };
/** ES2021+ features, by name (probes.js). */
export const PROBES: Record<string, () => unknown>;
/** Runs `probes` (default: all of probes.js). */
export function runProbes(probes?: Record<string, () => unknown>): Promise<Record<string, Outcome>>;
