import type { Outcome } from './probes.js';
/** Every probe, with the `/[\-]/u` literal. */
export const ALL_PROBES: Record<string, () => unknown>;
/** Runs every probe. */
export function runProbes(): Promise<Record<string, Outcome>>;
