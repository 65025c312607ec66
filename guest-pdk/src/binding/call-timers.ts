/**
 * The process binding's side of the event-loop rules the wasm sandbox keeps (issue 23): a timer
 * set while a request is being handled is cancelled once the answer is ready (the sandbox drops
 * it), and a timer callback or microtask that throws is reported on stderr and the extension goes
 * on (Node would end the process). While requests overlap, their timers end with the last of them.
 * The timers are Node's, or those of the virtual clock without the clock grant (virtual-timers.ts),
 * whose time goes back to its start when a request begins with none running.
 */
import type { TimerFunctions } from './virtual-timers.ts';

type TimerFn = (...args: unknown[]) => unknown;
type Handle = ReturnType<typeof setTimeout>;

/** Formats an exception nobody caught, as the sandbox logs it. */
function uncaught(error: unknown): string {
  if (error instanceof Error) return `Uncaught ${error.name}: ${error.message}${error.stack ? `\n${error.stack.split('\n').slice(1).join('\n')}` : ''}`;
  return `Uncaught ${typeof error === 'string' ? `'${error}'` : String(error)}`;
}

/**
 * Wraps the global timer functions (or puts `timers` in their place); returns `begin()`, whose
 * result ends the request. `restart` runs when a request begins with none running.
 */
export function installCallTimers(report: (text: string) => void, timers?: TimerFunctions, restart?: () => void): { begin(): () => void } {
  const g = globalThis as unknown as Record<string, TimerFn>;
  const base = (timers ?? g) as unknown as Record<string, TimerFn>;
  const [setT, setI, clearT, clearI, micro] = [base.setTimeout!, base.setInterval!, base.clearTimeout!, base.clearInterval!, g.queueMicrotask!];
  const live = new Set<Handle>();
  let inFlight = 0;
  const guarded = (fn: TimerFn, args: unknown[]): void => {
    try {
      fn(...args);
    } catch (error) {
      report(uncaught(error));
    }
  };
  const make = (set: TimerFn, repeat: boolean) =>
    function (fn: unknown, ms?: unknown, ...args: unknown[]): unknown {
      if (typeof fn !== 'function') return set(fn, ms, ...args); // Node's own ERR_INVALID_ARG_TYPE
      const handle = set(() => {
        if (!repeat) live.delete(handle);
        guarded(fn as TimerFn, args);
      }, ms) as Handle;
      if (inFlight > 0) live.add(handle);
      return handle;
    };
  g.setTimeout = make(setT, false);
  g.setInterval = make(setI, true);
  g.clearTimeout = (h: unknown) => { live.delete(h as Handle); clearT(h); };
  g.clearInterval = (h: unknown) => { live.delete(h as Handle); clearI(h); };
  g.queueMicrotask = (fn: unknown) => (typeof fn !== 'function' ? micro(fn) : micro(() => guarded(fn as TimerFn, [])));
  return {
    begin() {
      if (inFlight === 0) restart?.();
      inFlight++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        if (--inFlight > 0) return;
        for (const h of live) clearT(h);
        live.clear();
      };
    },
  };
}
