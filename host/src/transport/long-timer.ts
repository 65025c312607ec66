/**
 * Timers that hold any duration a user, a manifest, a served client or an extension can set.
 * JavaScript hosts arm a timer of at most 2^31 − 1 ms (about 24.8 days): Node fires a longer one
 * after 1 ms (with a TimeoutOverflowWarning), and so do browsers, so a deadline of 3,000,000,000
 * ms, or a 2,147,483,000 ms call timeout plus the session's margin, used to expire at once. Every
 * deadline the host arms goes through {@link setLongTimeout}, which splits a longer duration into
 * timers the platform holds. No `node:` module: the wasm core uses it too.
 */

import { MAX_CALL_TIMEOUT_MS_CEILING } from '../protocol/limits.ts';

/** The longest single timer a JavaScript host arms (2^31 − 1 ms, the limits table's ceiling of every deadline); longer ones are split. */
export const MAX_TIMER_MS = MAX_CALL_TIMEOUT_MS_CEILING;

/** Cancels a timer armed by {@link setLongTimeout}; calling it again, or after it fired, does nothing. */
export type CancelTimer = () => void;

/** Options of {@link setLongTimeout}. */
export interface LongTimeoutOptions {
  /** Do not keep the process alive for this timer alone (Node's `unref`). */
  unref?: boolean;
}

/**
 * Calls `fn` once after `ms` milliseconds, for any `ms`: a negative or NaN duration fires at the
 * next turn, `Infinity` never, and one above {@link MAX_TIMER_MS} is armed in parts. Returns the
 * function that cancels it.
 *
 * @example
 * const cancel = setLongTimeout(() => abandon(id), timeoutMs);
 * try { await answer; } finally { cancel(); }
 */
export function setLongTimeout(fn: () => void, ms: number, options: LongTimeoutOptions = NO_OPTIONS): CancelTimer {
  if (ms === Infinity) return never;
  const remaining = Number.isNaN(ms) ? 0 : Math.max(0, ms);
  if (remaining <= MAX_TIMER_MS) {
    // One timer holds it (every request's deadline). Under tsx (esbuild keepNames) each named
    // closure made here costs a defineProperty per request: the one made is anonymous.
    const handle = armTimer(fn, remaining, options.unref);
    return () => clearTimeout(handle);
  }
  return armInParts(fn, remaining, options.unref);
}

const NO_OPTIONS: LongTimeoutOptions = {};
const never: CancelTimer = () => undefined;

/** One platform timer, unref'd when asked (Node's `unref`; browsers have none). */
function armTimer(run: () => void, delay: number, unref: boolean | undefined): ReturnType<typeof setTimeout> {
  const armed = setTimeout(run, delay);
  if (unref) (armed as { unref?: () => void }).unref?.();
  return armed;
}

/** A duration above {@link MAX_TIMER_MS}, armed as timers the platform holds, one after another. */
function armInParts(fn: () => void, ms: number, unref: boolean | undefined): CancelTimer {
  let remaining = ms;
  let handle: ReturnType<typeof setTimeout> | undefined;
  function arm(): void {
    const part = Math.min(remaining, MAX_TIMER_MS);
    remaining -= part;
    handle = armTimer(() => {
      if (remaining > 0) return arm();
      handle = undefined;
      fn();
    }, part, unref);
  }
  arm();
  return () => {
    if (handle !== undefined) clearTimeout(handle);
    handle = undefined;
    remaining = 0;
  };
}

/**
 * A promise that settles `ms` milliseconds from now through {@link setLongTimeout}, with the value
 * `value()` returns (or rejecting with what it throws), and the function that disarms it.
 */
export function longDelay<T>(ms: number, value: () => T): { promise: Promise<T>; cancel: CancelTimer } {
  let cancel: CancelTimer = () => undefined;
  const promise = new Promise<T>((resolve, reject) => {
    cancel = setLongTimeout(() => {
      try {
        resolve(value());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return { promise, cancel };
}
