// setTimeout, setInterval, clearTimeout, clearInterval and queueMicrotask, and the two hooks the
// C event loop drives (event-loop.c): loopStep runs the earliest due timer, loopEnd drops the
// rest when the call's answer is ready. Delays follow Node: below 1 ms, NaN or above 2^31-1 ms
// they become 1 ms. Timers run by due time, then in creation order; every microtask runs before
// the next timer. Handles are Node-style Timeout objects (ref/unref/hasRef/refresh, and their id
// as a primitive), so code written for Node or for browsers both work.
import { define, invalidArg, uncaughtText } from './util.js';

const TIMEOUT_MAX = 2 ** 31 - 1;

// What the event loop's hooks use, taken before any guest code runs: the C loop calls loopStep and
// loopEnd in every call, so a guest that replaced Map.prototype.clear, Array.prototype.push or
// Function.prototype.apply would otherwise break every call or see the runtime's own calls.
const { apply } = Reflect;
const mapGet = Map.prototype.get;
const mapSet = Map.prototype.set;
const mapHas = Map.prototype.has;
const mapDelete = Map.prototype.delete;
const mapClear = Map.prototype.clear;
const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;

export function installTimers(G, native) {
  const active = new Map(); // id -> Timeout
  const activeGet = (id) => apply(mapGet, active, [id]);
  const activeHas = (id) => apply(mapHas, active, [id]);
  const activeDelete = (id) => apply(mapDelete, active, [id]);
  let heap = []; // [due, seq, timeout, generation], a binary min-heap
  let nextId = 1;
  let seq = 0;

  const less = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  const push = (entry) => {
    heap[heap.length] = entry;
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!less(heap[i], heap[parent])) break;
      const swap = heap[i]; heap[i] = heap[parent]; heap[parent] = swap;
      i = parent;
    }
  };
  const pop = () => {
    const top = heap[0];
    const last = heap[heap.length - 1];
    heap.length--;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l], heap[m])) m = l;
        if (r < heap.length && less(heap[r], heap[m])) m = r;
        if (m === i) break;
        const swap = heap[i]; heap[i] = heap[m]; heap[m] = swap;
        i = m;
      }
    }
    return top;
  };

  const delayOf = (ms) => {
    const n = Number(ms);
    return n >= 1 && n <= TIMEOUT_MAX ? n : 1;
  };
  const report = (error) => native.log(3, uncaughtText(error));

  class Timeout {
    constructor(fn, delay, args, repeat) {
      this._id = nextId++;
      this._fn = fn;
      this._args = args;
      this._delay = delay;
      this._repeat = repeat;
      this._ref = true;
      this._gen = 0;
      apply(mapSet, active, [this._id, this]);
      this._schedule(native.loopNow() + delay);
    }
    _schedule(due) { push([due, seq++, this, ++this._gen]); }
    ref() { this._ref = true; return this; }
    unref() { this._ref = false; return this; }
    hasRef() { return this._ref; }
    /** Starts the timer's delay again from now (Node's timeout.refresh()). */
    refresh() {
      if (activeHas(this._id)) this._schedule(native.loopNow() + this._delay);
      return this;
    }
    close() { clear(this); return this; }
    [Symbol.toPrimitive]() { return this._id; }
  }
  Object.defineProperty(Timeout.prototype, Symbol.toStringTag, { value: 'Timeout', configurable: true });

  const create = (fn, ms, args, repeat) => {
    if (typeof fn !== 'function') throw invalidArg('callback', 'of type function', fn);
    const delay = delayOf(ms);
    return new Timeout(fn, delay, args, repeat);
  };
  const clear = (handle) => {
    if (handle === undefined || handle === null) return;
    const id = handle instanceof Timeout ? handle._id : Number(handle);
    const t = activeGet(id);
    if (t) { activeDelete(id); t._gen++; }
  };

  define(G, 'setTimeout', function setTimeout(fn, ms, ...args) { return create(fn, ms, args, false); });
  define(G, 'setInterval', function setInterval(fn, ms, ...args) { return create(fn, ms, args, true); });
  define(G, 'clearTimeout', function clearTimeout(handle) { clear(handle); });
  define(G, 'clearInterval', function clearInterval(handle) { clear(handle); });
  // A microtask that throws is reported and the loop goes on (as in a browser or a worker).
  define(G, 'queueMicrotask', function queueMicrotask(fn) {
    if (typeof fn !== 'function') throw invalidArg('callback', 'of type function', fn);
    Promise.resolve().then(() => { try { fn(); } catch (error) { report(error); } });
  });

  native.loopStep = () => {
    while (heap.length > 0) {
      const entry = heap[0];
      const due = entry[0], t = entry[2], gen = entry[3];
      if (gen !== t._gen || !activeHas(t._id)) { pop(); continue; }
      native.loopWait(due); // virtual time jumps; a granted clock is waited for
      pop();
      if (!t._repeat) activeDelete(t._id);
      try {
        apply(t._fn, undefined, t._args);
      } catch (error) {
        report(error); // an interrupt is uncatchable and goes on to the C loop
      }
      if (t._repeat && activeHas(t._id) && gen === t._gen) t._schedule(native.loopNow() + t._delay);
      return true;
    }
    return false;
  };
  native.loopEnd = () => {
    const n = apply(mapSize, active, []);
    apply(mapClear, active, []);
    heap = [];
    if (n > 0) native.log(0, `${n} timer${n === 1 ? ' was' : 's were'} still pending when the call's answer was ready: dropped (every call starts with none)`);
    return n;
  };
}
