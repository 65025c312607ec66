// Event, EventTarget, AbortController and AbortSignal (with abort(), timeout() and any()), the
// way Node has them. A listener that throws is reported and the other listeners still run.
import { define, invalidArg, uncaughtText } from './util.js';

export function installEvents(G, native) {
  const report = (error) => native.log(3, uncaughtText(error));
  const STOP = Symbol('stop');
  const STOP_NOW = Symbol('stopNow');

  class Event {
    constructor(type, init = {}) {
      if (arguments.length === 0) throw invalidArg('type', 'specified', undefined);
      this._type = String(type);
      this._bubbles = !!init.bubbles;
      this._cancelable = !!init.cancelable;
      this._composed = !!init.composed;
      this._defaultPrevented = false;
      this._target = null;
      this._current = null;
      this._phase = 0;
      this._stamp = native.loopNow();
      this[STOP] = false;
      this[STOP_NOW] = false;
    }
    get type() { return this._type; }
    get bubbles() { return this._bubbles; }
    get cancelable() { return this._cancelable; }
    get composed() { return this._composed; }
    get defaultPrevented() { return this._cancelable && this._defaultPrevented; }
    get target() { return this._target; }
    get currentTarget() { return this._current; }
    get srcElement() { return this._target; }
    get eventPhase() { return this._phase; }
    get timeStamp() { return this._stamp; }
    get isTrusted() { return false; }
    get returnValue() { return !this.defaultPrevented; }
    get cancelBubble() { return this[STOP]; }
    composedPath() { return this._current ? [this._current] : []; }
    preventDefault() { this._defaultPrevented = true; }
    stopPropagation() { this[STOP] = true; }
    stopImmediatePropagation() { this[STOP] = true; this[STOP_NOW] = true; }
  }
  Object.assign(Event, { NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 });
  Object.defineProperty(Event.prototype, Symbol.toStringTag, { value: 'Event', configurable: true });

  const LISTENERS = Symbol('listeners');
  const flagsOf = (options) => (typeof options === 'boolean' ? { capture: options } : options ?? {});

  class EventTarget {
    constructor() { this[LISTENERS] = new Map(); }
    addEventListener(type, listener, options) {
      if (listener === null || listener === undefined) return;
      const { capture = false, once = false, signal } = flagsOf(options);
      if (signal?.aborted) return;
      const list = this[LISTENERS].get(String(type)) ?? [];
      if (list.some((l) => l.listener === listener && l.capture === !!capture)) return;
      const entry = { listener, capture: !!capture, once: !!once, removed: false };
      list.push(entry);
      this[LISTENERS].set(String(type), list);
      signal?.addEventListener('abort', () => this.removeEventListener(type, listener, options), { once: true });
    }
    removeEventListener(type, listener, options) {
      const { capture = false } = flagsOf(options);
      const list = this[LISTENERS].get(String(type));
      if (!list) return;
      const i = list.findIndex((l) => l.listener === listener && l.capture === !!capture);
      if (i >= 0) { list[i].removed = true; list.splice(i, 1); }
    }
    dispatchEvent(event) {
      if (!(event instanceof Event)) throw invalidArg('event', 'an instance of Event', event);
      event._target = this;
      event._current = this;
      event._phase = 2;
      for (const entry of [...(this[LISTENERS].get(event.type) ?? [])]) {
        if (entry.removed) continue;
        if (entry.once) this.removeEventListener(event.type, entry.listener, entry);
        try {
          const { listener } = entry;
          if (typeof listener === 'function') listener.call(this, event);
          else if (typeof listener?.handleEvent === 'function') listener.handleEvent(event);
        } catch (error) {
          report(error);
        }
        if (event[STOP_NOW]) break;
      }
      event._current = null;
      event._phase = 0;
      return !event.defaultPrevented;
    }
  }
  Object.defineProperty(EventTarget.prototype, Symbol.toStringTag, { value: 'EventTarget', configurable: true });

  const abortError = () => new G.DOMException('This operation was aborted', 'AbortError');
  const KEY = Symbol('AbortSignal');
  class AbortSignal extends EventTarget {
    constructor(key) {
      if (key !== KEY) throw new TypeError('Illegal constructor');
      super();
      this._aborted = false;
      this._reason = undefined;
      this._onabort = null;
    }
    get aborted() { return this._aborted; }
    get reason() { return this._reason; }
    get onabort() { return this._onabort; }
    set onabort(fn) {
      if (this._onabort) this.removeEventListener('abort', this._onabort);
      this._onabort = typeof fn === 'function' ? fn : null;
      if (this._onabort) this.addEventListener('abort', this._onabort);
    }
    throwIfAborted() { if (this._aborted) throw this._reason; }
    static abort(reason) { const s = new AbortSignal(KEY); signalAbort(s, reason === undefined ? abortError() : reason); return s; }
    static timeout(ms) {
      const s = new AbortSignal(KEY);
      G.setTimeout(() => signalAbort(s, new G.DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
      return s;
    }
    static any(signals) {
      const s = new AbortSignal(KEY);
      for (const other of signals) {
        if (other.aborted) { signalAbort(s, other.reason); return s; }
      }
      for (const other of signals) other.addEventListener('abort', () => signalAbort(s, other.reason), { once: true });
      return s;
    }
  }
  Object.defineProperty(AbortSignal.prototype, Symbol.toStringTag, { value: 'AbortSignal', configurable: true });
  function signalAbort(signal, reason) {
    if (signal._aborted) return;
    signal._aborted = true;
    signal._reason = reason;
    signal.dispatchEvent(new Event('abort'));
  }

  class AbortController {
    constructor() { this._signal = new AbortSignal(KEY); }
    get signal() { return this._signal; }
    abort(reason) { signalAbort(this._signal, reason === undefined ? abortError() : reason); }
  }
  Object.defineProperty(AbortController.prototype, Symbol.toStringTag, { value: 'AbortController', configurable: true });

  for (const [name, value] of Object.entries({ Event, EventTarget, AbortSignal, AbortController })) define(G, name, value);
}
