/**
 * A timer queue on a virtual clock for morphir-elm's compiler. The compiled Elm runtime schedules
 * its work with `setTimeout(…, 0)` (Elm's `Process.sleep 0` between build phases, and once per
 * outgoing port at start-up); the wasm sandbox has no timers, so the frontend hands the Elm code
 * this queue instead of globals and runs it to completion itself. Time is virtual: running a timer
 * moves the clock to its deadline, so nothing ever waits.
 *
 * This file is the one place that stands in for an event loop: when the sandbox gains a real one
 * (setTimeout with a loop the engine runs), the worker can take the platform's timers instead
 * (elm-worker.ts accepts any {@link TimerSource}) and this file can go.
 */

/** Timer functions as the Elm runtime calls them, plus how to run them to the end. */
export interface TimerSource {
  setTimeout(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): number;
  clearTimeout(id?: number): void;
  /**
   * Runs due timers, earliest deadline first (then in the order they were set), until `done()`
   * holds or none is left. Absent for a platform's own timers, which its event loop runs.
   */
  runUntil?(done: () => boolean): void;
  /** Drops every timer waiting (those of a runtime that is being replaced). */
  clear?(): void;
}

/** A {@link TimerSource} that runs only when asked to; also says how many timers wait. */
export interface TimerQueue extends TimerSource {
  runUntil(done: () => boolean): void;
  /** Timers set and neither run nor cleared. */
  readonly pending: number;
}

interface Timer {
  id: number;
  due: number;
  callback: (...args: unknown[]) => void;
  args: unknown[];
}

/**
 * Creates an empty queue at virtual time 0.
 *
 * @example
 * const timers = createTimerQueue();
 * timers.setTimeout(() => log.push('b'), 5);
 * timers.setTimeout(() => log.push('a'), 0);
 * timers.runUntil(() => false); // runs 'a' then 'b'
 */
export function createTimerQueue(): TimerQueue {
  // Kept sorted by (due, id): the Elm runtime has at most a handful waiting at once.
  const waiting: Timer[] = [];
  let now = 0;
  let nextId = 1;
  return {
    setTimeout(callback, ms, ...args) {
      if (typeof callback !== 'function') throw new TypeError('setTimeout: the callback must be a function');
      const delay = typeof ms === 'number' && ms > 0 ? ms : 0;
      const timer: Timer = { id: nextId++, due: now + delay, callback, args };
      let at = waiting.length;
      while (at > 0 && waiting[at - 1].due > timer.due) at--;
      waiting.splice(at, 0, timer);
      return timer.id;
    },
    clearTimeout(id) {
      const at = waiting.findIndex((t) => t.id === id);
      if (at >= 0) waiting.splice(at, 1);
    },
    runUntil(done) {
      while (!done()) {
        const timer = waiting.shift();
        if (timer === undefined) return;
        now = Math.max(now, timer.due);
        timer.callback(...timer.args);
      }
    },
    clear() {
      waiting.length = 0;
    },
    get pending() {
      return waiting.length;
    },
  };
}
