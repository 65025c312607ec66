/**
 * The clock and randomness grants of a wasm extension (issue 23): asked for by its
 * `extension.json` (`permissions.clock`, `permissions.random`, pinned in the lock with the rest
 * of the manifest) or given on the command line (`mep --allow-clock`, `--allow-random`). Without
 * them the sandbox's time is virtual and Math.random repeats, and the guest logs one warning per
 * call naming the grant. A process extension is not sandboxed: it has the real clock and
 * randomness either way.
 */
import type { WasmGrants } from '../transport/wasm/limits.ts';

/** The grants a user or a manifest can give, beyond the sandbox's nothing. */
export interface ClockRandomGrants {
  /** The host's wall clock instead of virtual time. */
  clock?: boolean;
  /** Cryptographically strong randomness (crypto.getRandomValues, a random Math.random). */
  random?: boolean;
}

/** What {@link withGrants} needs of a launch spec. */
interface GrantedSpec {
  wasm?: { grants?: WasmGrants };
}

/**
 * `spec` with `grants` added to its wasm grants (a grant already given stays given; config
 * entries are kept). Returns `spec` itself when nothing is granted.
 *
 * @example
 * const spec = withGrants(specFromPath('out/ext.wasm'), { clock: true });
 */
export function withGrants<T extends GrantedSpec>(spec: T, grants: ClockRandomGrants | undefined): T {
  if (!grants?.clock && !grants?.random) return spec;
  const current = spec.wasm?.grants ?? {};
  const next: WasmGrants = { ...current };
  if (grants.clock) next.clock = true;
  if (grants.random) next.random = true;
  return { ...spec, wasm: { ...spec.wasm, grants: next } };
}
