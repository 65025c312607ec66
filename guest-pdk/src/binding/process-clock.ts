/**
 * A process extension's clock without the clock grant (issue 33): the same reproducible clock as
 * the wasm sandbox's (build/engine/glue/clock.c). Every request starts at SOURCE_DATE_EPOCH (from
 * the environment the host gives it; 2000-01-01T00:00:00Z without one) and time moves only as
 * its timers fire (virtual-timers.ts): `Date`, `Date.now()`, `new Date()` and `performance.now()`
 * read it. With MEP_ALLOW_CLOCK=1 in the environment (the host's grant) nothing is replaced.
 * As in the sandbox, one warning per process, and only when a date read from this clock is turned
 * into calendar fields or text by one of Date's own methods.
 */

/** 2000-01-01T00:00:00Z: the instant without SOURCE_DATE_EPOCH (the sandbox's too). */
const DEFAULT_EPOCH_MS = 946_684_800_000;
const MAX_TIME_MS = 8.64e15;

/** The virtual clock a process extension runs on. */
export interface ProcessClock {
  /** The virtual time now, in ms since 1970. */
  now(): number;
  /** Moves the clock to `ms` (a timer that falls due); never backwards. */
  advanceTo(ms: number): void;
  /** A request begins while none is running: back to the starting instant. */
  restart(): void;
}

/** Date's methods that turn its time into calendar fields or text (what quickjs's get_date_fields serves). */
const SHOWING = /^(get(UTC)?(FullYear|Month|Date|Day|Hours|Minutes|Seconds|Milliseconds)|getYear|set(UTC)?(FullYear|Month|Date|Hours|Minutes|Seconds|Milliseconds)|setYear|to(ISO|UTC|GMT|Date|Time|Locale|LocaleDate|LocaleTime|JSON)?String|toJSON)$/;

/** The starting instant in ms from SOURCE_DATE_EPOCH, or why it is unusable. */
function startOf(text: string | undefined): { ms: number; problem?: string } {
  if (text === undefined || text === '') return { ms: DEFAULT_EPOCH_MS };
  const ms = Number(text) * 1000;
  if (/^[0-9]+$/.test(text) && ms <= MAX_TIME_MS) return { ms };
  return { ms: DEFAULT_EPOCH_MS, problem: `SOURCE_DATE_EPOCH=${JSON.stringify(text)} is not a whole number of seconds since 1970: the clock starts at 2000-01-01T00:00:00Z instead` };
}

/**
 * Installs the reproducible clock unless `env.MEP_ALLOW_CLOCK` is '1'; returns it, or undefined
 * with the real clock. `warn` receives the warnings.
 */
export function installProcessClock(env: Readonly<Record<string, string | undefined>>, warn: (text: string) => void): ProcessClock | undefined {
  if (env.MEP_ALLOW_CLOCK === '1') return undefined;
  const start = startOf(env.SOURCE_DATE_EPOCH);
  if (start.problem) warn(start.problem);
  let now = start.ms;
  let readHigh = -1;
  let warned = false;
  const read = (): number => {
    if (now > readHigh) readHigh = now;
    return now;
  };
  const RealDate = Date;
  const timeOf = RealDate.prototype.getTime;
  const shown = (t: number): void => {
    if (warned || t < start.ms || t > readHigh) return;
    warned = true;
    warn(
      'this extension shows a date read from the clock, but the host grants it no clock: time is fixed at the host\'s SOURCE_DATE_EPOCH ' +
        '(2000-01-01T00:00:00Z unless set) when each request starts and moves only as timers fire, so the date is that instant, the same in every run. ' +
        'To give it the real time, grant the clock: "permissions": { "clock": true } in extension.json or mep --allow-clock; to pick the instant, set SOURCE_DATE_EPOCH.',
    );
  };
  // Date as a function of the virtual clock; its prototype, statics and instances stay the real ones.
  function VirtualDate(this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return new RealDate(read()).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [read()] : args, new.target);
  }
  Object.defineProperties(VirtualDate, {
    prototype: { value: RealDate.prototype, writable: false, enumerable: false, configurable: false },
    length: { value: 7 },
    name: { value: 'Date' },
    now: { value: { now: () => read() }.now, writable: true, configurable: true, enumerable: false },
    parse: { value: RealDate.parse, writable: true, configurable: true, enumerable: false },
    UTC: { value: RealDate.UTC, writable: true, configurable: true, enumerable: false },
  });
  Object.defineProperty(RealDate.prototype, 'constructor', { value: VirtualDate, writable: true, configurable: true, enumerable: false });
  const proto = RealDate.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const wrapped = new Map<unknown, unknown>();
  for (const name of Object.getOwnPropertyNames(proto)) {
    const original = proto[name];
    if (!SHOWING.test(name) || typeof original !== 'function') continue;
    // toGMTString is toUTCString itself: one wrapper for both.
    const method = wrapped.get(original) ?? { [name](this: Date, ...args: unknown[]) { shown(timeOf.call(this)); return original.apply(this, args); } }[name]!;
    if (!wrapped.has(original)) Object.defineProperty(method, 'length', { value: original.length });
    wrapped.set(original, method);
    Object.defineProperty(proto, name, { value: method, writable: true, configurable: true, enumerable: false });
  }
  (globalThis as { Date: unknown }).Date = VirtualDate;
  // performance.now() counts from the request's start, as in the sandbox; timeOrigin is that start.
  Object.defineProperties(performance, {
    now: { value: { now: () => read() - start.ms }.now, writable: true, configurable: true },
    timeOrigin: { get: () => start.ms, configurable: true },
  });
  return {
    now: () => now,
    advanceTo(ms) {
      if (ms > now) now = ms;
    },
    restart() {
      now = start.ms;
    },
  };
}
