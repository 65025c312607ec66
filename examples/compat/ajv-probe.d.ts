/** The probes of all 15 packages and the built-ins (ajv-probe.js). */
export function runProbes(): Promise<Record<string, { ok?: unknown; threw?: string }>>;
/** All 15 packages' probes, by name. */
export const ALL_PACKAGES: Record<string, () => unknown>;
