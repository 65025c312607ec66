/** The probes of the compatibility suite (probes.js): each package's or built-in's result, or what it threw. */
export function runProbes(packages?: Record<string, () => unknown>): Promise<Record<string, { ok?: unknown; threw?: string }>>;
/** One deterministic use of each npm package, by name. */
export const PACKAGES: Record<string, () => unknown>;
/** The built-ins' probes, by name. */
export const BUILTINS: Record<string, () => unknown>;
