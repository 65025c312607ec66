/**
 * `--allow-clock` and `--allow-random`: grant a wasm extension the host's clock or strong
 * randomness for this run (issue 23). An installed extension also gets what its extension.json
 * `permissions` ask for; a process extension has both anyway (it is not sandboxed).
 */
import type { ClockRandomGrants } from '../../registry/launch-grants.ts';

/** parseArgs options of the grant flags, for every command that runs an extension. */
export const GRANT_FLAGS = {
  'allow-clock': { type: 'boolean' },
  'allow-random': { type: 'boolean' },
} as const;

/** The help lines for {@link GRANT_FLAGS}. */
export const GRANT_HELP = `  --allow-clock       give a wasm extension the real clock (default: virtual time, 0 when
                      each call starts; extension.json "permissions": { "clock": true })
  --allow-random      give a wasm extension strong randomness (default: none, and Math.random
                      repeats in every call; extension.json "permissions": { "random": true })`;

/** The parsed flag values, as parseArgs returns them. */
export interface GrantFlagValues {
  'allow-clock'?: boolean;
  'allow-random'?: boolean;
}

/** The grants the flags give (none when neither is set). */
export function parseGrantFlags(values: GrantFlagValues): ClockRandomGrants {
  return { ...(values['allow-clock'] ? { clock: true } : {}), ...(values['allow-random'] ? { random: true } : {}) };
}
