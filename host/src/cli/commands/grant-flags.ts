/**
 * `--allow-clock` and `--allow-random`: grant an extension the host's clock (wasm and process) or
 * strong randomness (wasm; a process extension has it anyway) for this run (issues 23, 33). An
 * installed extension also gets what its extension.json `permissions` ask for. Without the clock,
 * time starts each call at SOURCE_DATE_EPOCH from `mep`'s environment.
 */
import { sourceDateEpochFrom, type ClockRandomGrants } from '../../registry/launch-grants.ts';

/** parseArgs options of the grant flags, for every command that runs an extension. */
export const GRANT_FLAGS = {
  'allow-clock': { type: 'boolean' },
  'allow-random': { type: 'boolean' },
} as const;

/** The help lines for {@link GRANT_FLAGS}. */
export const GRANT_HELP = `  --allow-clock       give the extension the real clock (default: fixed, each call starts at
                      SOURCE_DATE_EPOCH from the environment, else 2000-01-01T00:00:00Z;
                      extension.json "permissions": { "clock": true })
  --allow-random      give a wasm extension strong randomness (default: none, and Math.random
                      repeats in every call; extension.json "permissions": { "random": true })`;

/** The parsed flag values, as parseArgs returns them. */
export interface GrantFlagValues {
  'allow-clock'?: boolean;
  'allow-random'?: boolean;
}

/**
 * The grants the flags give (none when neither is set), with SOURCE_DATE_EPOCH from `env`.
 * Throws MepError(ERR_USAGE) for a malformed SOURCE_DATE_EPOCH.
 */
export function parseGrantFlags(values: GrantFlagValues, env: Readonly<Record<string, string | undefined>> = process.env): ClockRandomGrants {
  const sourceDateEpoch = sourceDateEpochFrom(env);
  return {
    ...(values['allow-clock'] ? { clock: true } : {}),
    ...(values['allow-random'] ? { random: true } : {}),
    ...(sourceDateEpoch === undefined ? {} : { sourceDateEpoch }),
  };
}
