/**
 * The clock and randomness grants of an extension (issues 23 and 33): asked for by its
 * `extension.json` (`permissions.clock`, `permissions.random`, pinned in the lock with the rest
 * of the manifest) or given on the command line (`mep --allow-clock`, `--allow-random`). Without
 * the clock grant time is reproducible: every call starts at SOURCE_DATE_EPOCH (as
 * reproducible-builds.org defines it; `mep` reads it from its environment, default
 * 2000-01-01T00:00:00Z) and moves only as timers fire, in a wasm guest and, since issue 33, in a
 * process extension too (its binding keeps that clock unless the host sets MEP_ALLOW_CLOCK=1).
 * Without randomness a wasm guest's Math.random repeats; a process extension has real randomness.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { DEFAULT_SOURCE_DATE_EPOCH, checkSourceDateEpoch, type WasmGrants } from '../transport/wasm/limits.ts';



/** The grants a user or a manifest can give, beyond the sandbox's nothing. */
export interface ClockRandomGrants {
  /** The host's wall clock instead of the fixed, virtual one. */
  clock?: boolean;
  /** Cryptographically strong randomness (crypto.getRandomValues, a random Math.random). */
  random?: boolean;
  /** The instant (whole seconds since 1970) the clock starts each call at without the clock grant. */
  sourceDateEpoch?: number;
}

/**
 * SOURCE_DATE_EPOCH from `env` (unset or empty: undefined). Throws MepError(ERR_USAGE) when it is
 * not a whole number of seconds since 1970 that a Date can hold, as reproducible-builds.org asks
 * of a malformed value.
 *
 * @example
 * const sourceDateEpoch = sourceDateEpochFrom(process.env); // 1700000000 for SOURCE_DATE_EPOCH=1700000000
 */
export function sourceDateEpochFrom(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = env.SOURCE_DATE_EPOCH;
  if (text === undefined || text === '') return undefined;
  if (!/^[0-9]+$/.test(text)) {
    throw new MepError(LocalErrorCode.Usage, `SOURCE_DATE_EPOCH=${JSON.stringify(text)} is not a whole number of seconds since 1970 (as 'date +%s' prints it); set it to one, or unset it for the default 2000-01-01T00:00:00Z.`, {
      data: { variable: 'SOURCE_DATE_EPOCH', value: text },
    });
  }
  return checkSourceDateEpoch(Number(text), 'SOURCE_DATE_EPOCH');
}

/**
 * The environment entries that tell a process extension's binding its clock: MEP_ALLOW_CLOCK=1
 * with the grant, else SOURCE_DATE_EPOCH (the default when none is given).
 */
export function processClockEnv(grants: Pick<ClockRandomGrants, 'clock' | 'sourceDateEpoch'> | undefined): Record<string, string> {
  if (grants?.clock) return { MEP_ALLOW_CLOCK: '1' };
  return { SOURCE_DATE_EPOCH: String(checkSourceDateEpoch(grants?.sourceDateEpoch ?? DEFAULT_SOURCE_DATE_EPOCH, 'sourceDateEpoch')) };
}

/** What {@link withGrants} needs of a launch spec (whose wasm grants a process extension's clock reads too). */
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
  if (!grants?.clock && !grants?.random && grants?.sourceDateEpoch === undefined) return spec;
  const current = spec.wasm?.grants ?? {};
  const next: WasmGrants = { ...current };
  if (grants.clock) next.clock = true;
  if (grants.random) next.random = true;
  if (grants.sourceDateEpoch !== undefined) next.sourceDateEpoch = grants.sourceDateEpoch;
  return { ...spec, wasm: { ...spec.wasm, grants: next } };
}
