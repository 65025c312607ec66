// The JS half of the mep engine, evaluated once per instance (inside the wizer snapshot for a
// built guest). `native` holds the C functions from extism.c, mep-host.c and text.c; this file
// turns them into the @extism/js-pdk compatible globals (Host, Memory, Config, console), the
// MEP host API (__mep), TextEncoder/TextDecoder, crypto, and polyfills for ES2021+ builtins
// that QuickJS 2021-03-27 lacks. Every polyfill is installed only when missing.
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

  // structuredClone for data: primitives, arrays, plain objects, Date, RegExp, Map, Set,
  // ArrayBuffer, typed arrays and errors, with cycles. Functions and symbols are refused.
  polyfill(G, 'structuredClone', function structuredClone(value) {
    const seen = new Map();
    const clone = (v) => {
      if (typeof v === 'function' || typeof v === 'symbol') throw new TypeError(`structuredClone: ${typeof v} values cannot be cloned`);
      if (v === null || typeof v !== 'object') return v;
      if (seen.has(v)) return seen.get(v);
      let out;
      if (Array.isArray(v)) { out = []; seen.set(v, out); v.forEach((x, i) => { out[i] = clone(x); }); return out; }
      if (v instanceof Date) out = new Date(v.getTime());
      else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
      else if (v instanceof ArrayBuffer) out = v.slice(0);
      else if (ArrayBuffer.isView(v)) { out = new v.constructor(clone(v.buffer), v.byteOffset, v instanceof DataView ? v.byteLength : v.length); }
      else if (v instanceof Map) { out = new Map(); seen.set(v, out); for (const [k, x] of v) out.set(clone(k), clone(x)); return out; }
      else if (v instanceof Set) { out = new Set(); seen.set(v, out); for (const x of v) out.add(clone(x)); return out; }
      else if (v instanceof Error) { out = new v.constructor(v.message); if (v.stack) out.stack = v.stack; }
      else { out = {}; seen.set(v, out); for (const k of Object.keys(v)) out[k] = clone(v[k]); return out; }
      seen.set(v, out); return out;
    };
    return clone(value);
  });

  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  polyfill(G, 'btoa', (s) => {
    s = String(s); let out = '';
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) throw new Error('btoa: the string contains characters outside Latin1');
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=');
    }
    return out;
  });
  polyfill(G, 'atob', (s) => {
    s = String(s).replace(/[\t\n\f\r ]/g, '').replace(/=+$/, '');
    let out = '', bits = 0, n = 0;
    for (const ch of s) {
      const v = B64.indexOf(ch);
      if (v < 0) throw new Error('atob: the string is not valid base64');
      n = (n << 6) | v; bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((n >> bits) & 255); }
    }
    return out;
  });

  // ---- TextEncoder / TextDecoder (UTF-8 only, converted in C) ------------------------------
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') { return new Uint8Array(native.utf8Encode(String(input))); }
    encodeInto(input, dest) {
      const bytes = this.encode(input);
      const n = Math.min(bytes.length, dest.length);
      dest.set(bytes.subarray(0, n));
      return { read: n === bytes.length ? String(input).length : undefined, written: n };
    }
  }
  class TextDecoder {
    constructor(label = 'utf-8', options = {}) {
      const l = String(label).toLowerCase();
      if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8') throw new RangeError(`TextDecoder: only utf-8 is supported, not '${label}'`);
      this.ignoreBOM = !!options.ignoreBOM;
      this.fatal = !!options.fatal;
    }
    get encoding() { return 'utf-8'; }
    decode(input) {
      if (input === undefined) return '';
      let buffer = input, offset = 0, length;
      if (ArrayBuffer.isView(input)) { buffer = input.buffer; offset = input.byteOffset; length = input.byteLength; }
      else if (input instanceof ArrayBuffer) length = input.byteLength;
      else throw new TypeError('TextDecoder.decode: expected an ArrayBuffer or a view');
      if (length === 0) return '';
      const s = native.utf8Decode(buffer, offset, length);
      return !this.ignoreBOM && s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
    }
  }
  polyfill(G, 'TextEncoder', TextEncoder);
  polyfill(G, 'TextDecoder', TextDecoder);

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

  const crypto = {
    getRandomValues(view) {
      if (!ArrayBuffer.isView(view) || view instanceof Float32Array || view instanceof Float64Array || view instanceof DataView)
        throw new TypeError('crypto.getRandomValues: expected an integer typed array');
      if (view.byteLength > 65536) throw new RangeError('crypto.getRandomValues: at most 65536 bytes per call');
      if (!native.randomFill(view)) throw new Error('crypto.getRandomValues: the host did not grant randomness to this extension');
      return view;
    },
    randomUUID() {
      const b = crypto.getRandomValues(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
  polyfill(G, 'crypto', crypto);

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

  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return v.stack ? `${v.name}: ${v.message}\n${v.stack}` : String(v);
    if (typeof v === 'object' && v !== null) {
      try { const s = JSON.stringify(v); if (s !== undefined) return s; } catch (e) { /* cycles or BigInt: fall back */ }
    }
    return String(v);
  };
  const logAt = (level) => (...args) => native.log(level, args.map(show).join(' '));
  const console = {
    debug: logAt(0), trace: logAt(0), log: logAt(1), info: logAt(1), warn: logAt(2), error: logAt(3),
  };
  define(G, 'console', console);
});
