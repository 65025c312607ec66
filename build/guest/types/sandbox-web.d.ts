/**
 * The web platform globals of a mep wasm guest (build/engine/glue/globals/), as declarations.
 * Only what the sandbox has: no DOM, no network, no Node.js. Each one behaves as Node's does
 * (checked against Node in build/engine/globals.test.ts), so code written to these types runs the
 * same in a `--runtime process` build.
 */

// ---- the event loop inside each call -----------------------------------------------------------

/**
 * A timer handle (Node-style): `+handle` is its numeric id. Timers still pending when a call's
 * answer is ready are dropped, so every call starts with none.
 */
interface Timeout {
  ref(): this;
  unref(): this;
  hasRef(): boolean;
  /** Starts the delay again from now. */
  refresh(): this;
  close(): this;
  [Symbol.toPrimitive](): number;
}
/** Runs `handler` after `ms` (below 1, NaN or above 2^31-1: 1 ms), in the call's time (virtual unless the clock is granted). */
declare function setTimeout<A extends unknown[]>(handler: (...args: A) => void, ms?: number, ...args: A): Timeout;
/** Without arguments for the handler (e.g. a promise's `resolve`). */
declare function setTimeout(handler: (...args: never[]) => void, ms?: number): Timeout;
/** Runs `handler` every `ms`; an interval that never stops ends at the call's deadline. */
declare function setInterval<A extends unknown[]>(handler: (...args: A) => void, ms?: number, ...args: A): Timeout;
declare function setInterval(handler: (...args: never[]) => void, ms?: number): Timeout;
declare function clearTimeout(handle: Timeout | number | string | undefined | null): void;
declare function clearInterval(handle: Timeout | number | string | undefined | null): void;
/** Runs `callback` after the current job, before the next timer. */
declare function queueMicrotask(callback: () => void): void;

// ---- console -----------------------------------------------------------------------------------

/** Every method sends its line to the host's log: debug/trace at debug, warn/assert at warn, error at error, the rest at info. */
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  trace(...data: unknown[]): void;
  dir(item?: unknown, options?: unknown): void;
  dirxml(...data: unknown[]): void;
  table(tabularData?: unknown, properties?: string[]): void;
  assert(condition?: boolean, ...data: unknown[]): void;
  count(label?: string): void;
  countReset(label?: string): void;
  group(...label: unknown[]): void;
  groupCollapsed(...label: unknown[]): void;
  groupEnd(): void;
  time(label?: string): void;
  timeLog(label?: string, ...data: unknown[]): void;
  timeEnd(label?: string): void;
}
declare var console: Console;

// ---- time and randomness (granted by the host) -------------------------------------------------

/** The call's clock: virtual (0 at the call's start, moving as timers fire) unless the host grants `clock`. */
interface Performance {
  now(): number;
  readonly timeOrigin: number;
  toJSON(): { timeOrigin: number };
}
declare var performance: Performance;

/** Throws a `NotAllowedError` DOMException unless the host grants `random`. */
interface Crypto {
  getRandomValues<T extends Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array>(array: T): T;
  randomUUID(): `${string}-${string}-${string}-${string}-${string}`;
}
declare var crypto: Crypto;

// ---- text, bytes and values --------------------------------------------------------------------

interface TextEncoderEncodeIntoResult {
  read: number;
  written: number;
}
interface TextEncoder {
  readonly encoding: 'utf-8';
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder };

interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}
interface TextDecodeOptions {
  /** Keeps an incomplete sequence at the end for the next call. */
  stream?: boolean;
}
/** UTF-8 and UTF-16LE; any other label throws a RangeError. */
interface TextDecoder {
  readonly encoding: 'utf-8' | 'utf-16le';
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: TextDecodeOptions): string;
}
declare var TextDecoder: { prototype: TextDecoder; new (label?: string, options?: TextDecoderOptions): TextDecoder };

/** Base64 of a string of code units 0-255 (InvalidCharacterError otherwise). */
declare function btoa(data: string): string;
declare function atob(data: string): string;

/** A deep copy (cycles, Map, Set, Date, RegExp, typed arrays, errors); DataCloneError for functions, symbols, promises. */
declare function structuredClone<T = unknown>(value: T, options?: { transfer?: never[] }): T;

/** An Error with a DOM-style `name` (AbortError, DataCloneError, ...) and legacy `code`. */
interface DOMException extends Error {
  readonly name: string;
  readonly message: string;
  readonly code: number;
}
declare var DOMException: {
  prototype: DOMException;
  new (message?: string, options?: string | { name?: string; cause?: unknown }): DOMException;
};

// ---- URL ---------------------------------------------------------------------------------------

/** The WHATWG URL parser (special schemes, IPv4/IPv6 and punycode hosts, file URLs). */
interface URL {
  href: string;
  readonly origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  readonly searchParams: URLSearchParams;
  hash: string;
  toString(): string;
  toJSON(): string;
}
declare var URL: {
  prototype: URL;
  new (url: string | URL, base?: string | URL): URL;
  canParse(url: string | URL, base?: string | URL): boolean;
  parse(url: string | URL, base?: string | URL): URL | null;
};

interface URLSearchParams {
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: unknown): void;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  entries(): IterableIterator<[string, string]>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}
declare var URLSearchParams: {
  prototype: URLSearchParams;
  new (init?: string | URLSearchParams | Iterable<readonly [string, string]> | Record<string, string>): URLSearchParams;
};

// ---- events and cancellation -------------------------------------------------------------------

interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}
interface Event {
  readonly type: string;
  readonly bubbles: boolean;
  readonly cancelable: boolean;
  readonly composed: boolean;
  readonly defaultPrevented: boolean;
  readonly target: EventTarget | null;
  readonly currentTarget: EventTarget | null;
  readonly eventPhase: number;
  readonly timeStamp: number;
  readonly isTrusted: boolean;
  composedPath(): EventTarget[];
  preventDefault(): void;
  stopPropagation(): void;
  stopImmediatePropagation(): void;
}
declare var Event: {
  prototype: Event;
  new (type: string, init?: EventInit): Event;
  readonly NONE: 0;
  readonly CAPTURING_PHASE: 1;
  readonly AT_TARGET: 2;
  readonly BUBBLING_PHASE: 3;
};

type EventListenerOrEventListenerObject = ((event: Event) => void) | { handleEvent(event: Event): void };
interface AddEventListenerOptions {
  capture?: boolean;
  once?: boolean;
  signal?: AbortSignal;
}
/** A listener that throws is logged (error level) and the others still run. */
interface EventTarget {
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | { capture?: boolean }): void;
  dispatchEvent(event: Event): boolean;
}
declare var EventTarget: { prototype: EventTarget; new (): EventTarget };

interface AbortSignal extends EventTarget {
  readonly aborted: boolean;
  readonly reason: unknown;
  onabort: ((this: AbortSignal, event: Event) => void) | null;
  throwIfAborted(): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  abort(reason?: unknown): AbortSignal;
  /** Aborts with a TimeoutError after `ms` of the call's time (the timer ends with the call). */
  timeout(ms: number): AbortSignal;
  any(signals: Iterable<AbortSignal>): AbortSignal;
};

interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare var AbortController: { prototype: AbortController; new (): AbortController };
