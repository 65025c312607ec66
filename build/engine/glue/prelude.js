// The JS half of the mep engine, evaluated once per instance (inside the wizer snapshot for a
// built guest). `native` holds the C functions from extism.c, mep-host.c and text.c; this file
// turns them into the @extism/js-pdk compatible globals (Host, Memory, Config), the MEP host API
// (__mep) and polyfills for ES2021+ builtins that QuickJS 2021-03-27 lacks (each installed only
// when missing). The platform's globals (console, timers, URL, TextEncoder, crypto, ...) are in
// globals/, evaluated after this file.
(function (native) {
  'use strict';
  const G = globalThis;
  const define = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });
  const polyfill = (obj, name, value) => {
    if (!Object.prototype.hasOwnProperty.call(obj, name)) define(obj, name, value);
  };

  // Used by the C side to settle a promise returned by an export (guest.c, mep_settle).
  native.settle = (p) => {
    const box = { state: 0, value: undefined };
    Promise.resolve(p).then(
      (v) => { box.state = 1; box.value = v; },
      (e) => { box.state = 2; box.value = e; },
    );
    return box;
  };

  // ---- ES2021+ builtins -------------------------------------------------------------------
  const toInt = (n) => { n = Math.trunc(Number(n)); return Number.isNaN(n) ? 0 : n; };
  const relIndex = (len, i) => { i = toInt(i); return i < 0 ? len + i : i; };
  function at(i) { const len = this.length >>> 0; const k = relIndex(len, i); return k < 0 || k >= len ? undefined : this[k]; }
  function findLast(fn, thisArg) { for (let i = (this.length >>> 0) - 1; i >= 0; i--) if (fn.call(thisArg, this[i], i, this)) return this[i]; return undefined; }
  function findLastIndex(fn, thisArg) { for (let i = (this.length >>> 0) - 1; i >= 0; i--) if (fn.call(thisArg, this[i], i, this)) return i; return -1; }
  const TypedArray = Object.getPrototypeOf(Uint8Array);
  for (const proto of [Array.prototype, TypedArray.prototype]) {
    polyfill(proto, 'at', at);
    polyfill(proto, 'findLast', findLast);
    polyfill(proto, 'findLastIndex', findLastIndex);
  }
  polyfill(String.prototype, 'at', function (i) { const s = String(this); const k = relIndex(s.length, i); return k < 0 || k >= s.length ? undefined : s[k]; });
  polyfill(Array.prototype, 'toReversed', function () { return Array.prototype.slice.call(this).reverse(); });
  polyfill(Array.prototype, 'toSorted', function (cmp) { return Array.prototype.slice.call(this).sort(cmp); });
  polyfill(Array.prototype, 'toSpliced', function (...args) { const a = Array.prototype.slice.call(this); a.splice(...args); return a; });
  polyfill(Array.prototype, 'with', function (i, v) {
    const a = Array.prototype.slice.call(this); const k = relIndex(a.length, i);
    if (k < 0 || k >= a.length) throw new RangeError('Array.prototype.with: index out of range');
    a[k] = v; return a;
  });
  polyfill(TypedArray.prototype, 'toReversed', function () { return this.slice().reverse(); });
  polyfill(TypedArray.prototype, 'toSorted', function (cmp) { return this.slice().sort(cmp); });
  polyfill(Array.prototype, 'flat', function flat(depth = 1) {
    const out = [];
    const walk = (a, d) => { for (const v of a) (Array.isArray(v) && d > 0 ? walk(v, d - 1) : out.push(v)); };
    walk(this, toInt(depth)); return out;
  });
  polyfill(Array.prototype, 'flatMap', function (fn, thisArg) { return Array.prototype.map.call(this, fn, thisArg).flat(1); });
  polyfill(String.prototype, 'replaceAll', function (search, replacement) {
    if (search instanceof RegExp) {
      if (!search.global) throw new TypeError('replaceAll must be called with a global RegExp');
      return String(this).replace(search, replacement);
    }
    return String(this).split(String(search)).join(typeof replacement === 'function' ? '' : replacement);
  });
  polyfill(Object, 'hasOwn', (o, k) => Object.prototype.hasOwnProperty.call(Object(o), k));
  polyfill(Object, 'groupBy', (items, fn) => {
    const out = Object.create(null); let i = 0;
    for (const v of items) { const k = fn(v, i++); (out[k] || (out[k] = [])).push(v); }
    return out;
  });
  polyfill(Map, 'groupBy', (items, fn) => {
    const out = new Map(); let i = 0;
    for (const v of items) { const k = fn(v, i++); if (!out.has(k)) out.set(k, []); out.get(k).push(v); }
    return out;
  });
  polyfill(Promise, 'allSettled', (ps) => Promise.all(Array.from(ps, (p) => Promise.resolve(p).then(
    (value) => ({ status: 'fulfilled', value }), (reason) => ({ status: 'rejected', reason })))));
  polyfill(Promise, 'any', (ps) => new Promise((resolve, reject) => {
    const list = Array.from(ps); const errors = []; let left = list.length;
    if (left === 0) reject(new Error('All promises were rejected'));
    list.forEach((p, i) => Promise.resolve(p).then(resolve, (e) => { errors[i] = e; if (--left === 0) { const err = new Error('All promises were rejected'); err.errors = errors; reject(err); } }));
  }));

  // ---- MEP host API ------------------------------------------------------------------------
  // Without the host channel (a foreign Extism host) nothing here traps: notify returns false,
  // request null, interrupted false, clockMs 0, randomFill false.
  const mep = Object.freeze({
    /** True when the host attached the MEP channel for this instance (ask at call time). */
    hostChannel: () => native.hostChannel(),
    /** Sends one JSON-RPC notification (a string) to the host; false when there is no channel. */
    notify: (json) => native.notify(String(json)),
    /** Sends one JSON-RPC request (a string); returns the host's JSON response or null. */
    request: (json) => native.request(String(json)),
    /** True when the host asks the guest to stop now (deadline or cancel). */
    interrupted: () => native.interrupted(),
    /** Wall-clock ms since the epoch when the host granted time, else 0. */
    clockMs: () => native.clockMs(),
    /** The call's input parsed as JSON from its UTF-8 bytes (throws SyntaxError like JSON.parse). */
    inputJson: () => native.inputJson(),
    /** Fills an integer typed array with random bytes; false when randomness is not granted. */
    randomFill: (view) => native.randomFill(view),
  });
  define(G, '__mep', mep);

  // ---- Extism js-pdk globals ---------------------------------------------------------------
  class MemoryHandle {
    constructor(offset, len) { this.offset = BigInt(offset); this.len = Number(len); }
    readString() { return native.memRead(this.offset, true); }
    readBytes() { return native.memRead(this.offset, false); }
    readJsonObject() { return JSON.parse(this.readString()); }
    free() { native.memFree(this.offset); }
  }
  const handle = (offset) => new MemoryHandle(offset, native.memLength(offset));
  const Memory = {
    fromString: (s) => handle(native.memFromString(String(s))),
    fromBuffer: (bytes) => handle(native.memFromBytes(bytes)),
    fromJsonObject: (o) => handle(native.memFromString(JSON.stringify(o))),
    find: (offset) => handle(BigInt(offset)),
    readBytes: (offset) => native.memRead(BigInt(offset), false),
    readString: (offset) => native.memRead(BigInt(offset), true),
  };
  const Host = {
    inputBytes: () => native.inputBytes(),
    inputString: () => native.inputString(),
    outputBytes: (bytes) => native.outputBytes(bytes),
    outputString: (s) => native.outputString(String(s)),
    getFunctions: () => mep,
  };
  const Config = { get: (key) => native.configGet(String(key)) };
  define(G, 'MemoryHandle', MemoryHandle);
  define(G, 'Memory', Memory);
  define(G, 'Host', Host);
  define(G, 'Config', Config);
});
