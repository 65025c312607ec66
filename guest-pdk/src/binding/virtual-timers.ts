/**
 * Timers on a process extension's virtual clock (issue 33, process-clock.ts): the sandbox's rules
 * (build/engine/glue/globals/timers.js) in Node. A timer's callback runs as soon as the extension
 * is idle — its microtasks done and no request to the host (a secret) waiting — with the clock
 * moved to the time the timer is due, so `await sleep(3_600_000)` returns at once and a result
 * never depends on when it ran. Timers run by due time, then in creation order; delays below
 * 1 ms, NaN or above 2^31-1 ms are 1 ms, as in Node. Node's own I/O is not waited for: a timer
 * raced against a file read fires first.
 */
import type { ProcessClock } from './process-clock.ts';

type Callback = (...args: unknown[]) => unknown;

/** The global timer functions, real or virtual. */
export interface TimerFunctions {
  setTimeout(fn: unknown, ms?: unknown, ...args: unknown[]): unknown;
  setInterval(fn: unknown, ms?: unknown, ...args: unknown[]): unknown;
  clearTimeout(handle: unknown): void;
  clearInterval(handle: unknown): void;
}

const TIMEOUT_MAX = 2 ** 31 - 1;

/** A Node-style handle of a virtual timer (ref/unref/hasRef/refresh/close, its id as a primitive). */
class VirtualTimeout {
  private refed = true;
  constructor(
    readonly id: number,
    readonly delay: number,
    private readonly reschedule: (t: VirtualTimeout) => void,
    private readonly cancel: (t: VirtualTimeout) => void,
  ) {}
  ref(): this { this.refed = true; return this; }
  unref(): this { this.refed = false; return this; }
  hasRef(): boolean { return this.refed; }
  refresh(): this { this.reschedule(this); return this; }
  close(): this { this.cancel(this); return this; }
  [Symbol.toPrimitive](): number { return this.id; }
}

interface Entry {
  due: number;
  seq: number;
  timer: VirtualTimeout;
  fn: Callback;
  args: unknown[];
  repeat: boolean;
}

/**
 * Timer functions on `clock`; `isIdle()` says whether a timer may fire now, `wake()` is called
 * when it may again (an answer from the host arrived).
 */
export function createVirtualTimers(clock: ProcessClock, isIdle: () => boolean): TimerFunctions & { wake(): void } {
  const pending = new Map<number, Entry>();
  let nextId = 1;
  let seq = 0;
  let scheduled = false;
  const immediate = setImmediate;

  const earliest = (): Entry | undefined => {
    let first: Entry | undefined;
    for (const e of pending.values()) if (!first || e.due < first.due || (e.due === first.due && e.seq < first.seq)) first = e;
    return first;
  };
  const pump = (): void => {
    scheduled = false;
    if (!isIdle()) return; // wake() resumes
    const e = earliest();
    if (!e) return;
    clock.advanceTo(e.due);
    if (e.repeat) {
      e.due = clock.now() + e.timer.delay;
      e.seq = seq++;
    } else pending.delete(e.timer.id);
    try {
      e.fn(...e.args);
    } finally {
      arm();
    }
  };
  // A real immediate runs after the microtasks the last callback queued, as the sandbox's loop does.
  const arm = (): void => {
    if (scheduled || pending.size === 0) return;
    scheduled = true;
    immediate(pump);
  };
  const cancel = (t: VirtualTimeout): void => void pending.delete(t.id);
  const reschedule = (t: VirtualTimeout): void => {
    const e = pending.get(t.id);
    if (!e) return;
    e.due = clock.now() + t.delay;
    e.seq = seq++;
  };
  const create = (fn: unknown, ms: unknown, args: unknown[], repeat: boolean): VirtualTimeout => {
    if (typeof fn !== 'function') {
      const error = new TypeError(`The "callback" argument must be of type function. Received ${fn === null ? 'null' : typeof fn}`);
      (error as { code?: string }).code = 'ERR_INVALID_ARG_TYPE';
      throw error;
    }
    const n = Number(ms);
    const delay = n >= 1 && n <= TIMEOUT_MAX ? n : 1;
    const timer = new VirtualTimeout(nextId++, delay, reschedule, cancel);
    pending.set(timer.id, { due: clock.now() + delay, seq: seq++, timer, fn: fn as Callback, args, repeat });
    arm();
    return timer;
  };
  const clear = (handle: unknown): void => {
    if (handle === undefined || handle === null) return;
    pending.delete(handle instanceof VirtualTimeout ? handle.id : Number(handle));
  };
  return {
    setTimeout: (fn, ms, ...args) => create(fn, ms, args, false),
    setInterval: (fn, ms, ...args) => create(fn, ms, args, true),
    clearTimeout: clear,
    clearInterval: clear,
    wake: arm,
  };
}
