// The JS half of the mep engine, evaluated once per instance (inside the wizer snapshot for a
// built guest). `native` holds the C functions from extism.c, mep-host.c and text.c; this file
// turns them into the @extism/js-pdk compatible globals (Host, Memory, Config) and the MEP host
// API (__mep). quickjs-ng has the ES2021+ builtins itself; the platform's globals (console,
// timers, URL, TextEncoder/TextDecoder, structuredClone, crypto, ...) are in globals/, evaluated
// after this file.
(function (native) {
  'use strict';
  const G = globalThis;
  // The built-ins this file uses when a guest calls it, taken now, before any guest code runs
  // (as Node's primordials): a guest that replaces String, JSON, Promise.resolve or
  // Promise.prototype.then neither breaks these functions nor sees their calls.
  const { apply } = Reflect;
  const defineProperty = Object.defineProperty;
  const NativePromise = Promise;
  const promiseResolve = Promise.resolve;
  const promiseThen = Promise.prototype.then;
  const toText = String;
  const jsonParse = JSON.parse;
  const jsonStringify = JSON.stringify;
  const toBigInt = BigInt;
  const toNumber = Number;
  const define = (obj, name, value) =>
    defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });

  // Used by the C side to settle a promise returned by an export (guest.c, mep_settle). The box
  // has no prototype: C reads its fields, and nothing a guest added to Object.prototype is met.
  native.settle = (p) => {
    const box = { __proto__: null, state: 0, value: undefined };
    const promise = p instanceof NativePromise ? p : apply(promiseResolve, NativePromise, [p]);
    apply(promiseThen, promise, [
      (v) => { box.state = 1; box.value = v; },
      (e) => { box.state = 2; box.value = e; },
    ]);
    return box;
  };

  // ---- MEP host API ------------------------------------------------------------------------
  // Without the host channel (a foreign Extism host) nothing here traps: notify returns false,
  // request null, interrupted false, clockMs 0, randomFill false.
  const mep = Object.freeze({
    /** True when the host attached the MEP channel for this instance (ask at call time). */
    hostChannel: () => native.hostChannel(),
    /** Sends one JSON-RPC notification (a string) to the host; false when there is no channel. */
    notify: (json) => native.notify(toText(json)),
    /**
     * Sends one streamed artifact as its content's bytes beside a JSON envelope (a string:
     * {"requestId", "path", "binary"}); false when the host has no such channel (or the content
     * has a lone surrogate): send the morphir.backend.artifact notification instead.
     */
    artifact: (envelope, content) => native.artifact(toText(envelope), toText(content)),
    /** Sends one JSON-RPC request (a string); returns the host's JSON response or null. */
    request: (json) => native.request(toText(json)),
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
    constructor(offset, len) { this.offset = toBigInt(offset); this.len = toNumber(len); }
    readString() { return native.memRead(this.offset, true); }
    readBytes() { return native.memRead(this.offset, false); }
    readJsonObject() { return jsonParse(this.readString()); }
    free() { native.memFree(this.offset); }
  }
  const handle = (offset) => new MemoryHandle(offset, native.memLength(offset));
  const Memory = {
    fromString: (s) => handle(native.memFromString(toText(s))),
    fromBuffer: (bytes) => handle(native.memFromBytes(bytes)),
    fromJsonObject: (o) => handle(native.memFromString(jsonStringify(o))),
    find: (offset) => handle(toBigInt(offset)),
    readBytes: (offset) => native.memRead(toBigInt(offset), false),
    readString: (offset) => native.memRead(toBigInt(offset), true),
  };
  const Host = {
    inputBytes: () => native.inputBytes(),
    inputString: () => native.inputString(),
    outputBytes: (bytes) => native.outputBytes(bytes),
    outputString: (s) => native.outputString(toText(s)),
    getFunctions: () => mep,
  };
  const Config = { get: (key) => native.configGet(toText(key)) };
  define(G, 'MemoryHandle', MemoryHandle);
  define(G, 'Memory', Memory);
  define(G, 'Host', Host);
  define(G, 'Config', Config);
});
