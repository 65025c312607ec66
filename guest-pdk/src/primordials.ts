/**
 * The built-ins the PDK's answer path uses, taken when this module is evaluated, before the
 * extension's own code runs (the bundle evaluates the PDK first), as Node's primordials are: an
 * extension that replaces or deletes `JSON`, `String`, `Promise.resolve`,
 * `Promise.prototype.then`, `Array.prototype[Symbol.iterator]`, `Array.prototype.push`,
 * `Map.prototype.set` or adds `Object.prototype.then` can break its own code, but neither the
 * JSON-RPC envelope the PDK writes nor its bookkeeping, and it does not see the PDK's calls
 * (guest-pdk/src/primordials.test.ts).
 *
 * Values the PDK passes through its own promises travel in boxes without a prototype, so
 * resolving them looks up no `then` a guest could have added to `Object.prototype`.
 */

const { apply } = Reflect;
const PromiseCtor = Promise;
const promiseThen = Promise.prototype.then;
const mapGet = Map.prototype.get;
const mapSet = Map.prototype.set;
const mapHas = Map.prototype.has;
const mapDelete = Map.prototype.delete;
const setAdd = Set.prototype.add;
const setDelete = Set.prototype.delete;
const objectProto = Object.prototype;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const hasOwn = Object.prototype.hasOwnProperty;
const stringIndexOf = String.prototype.indexOf;

/** `JSON.stringify` and `JSON.parse` as they were. */
export const jsonStringify: (value: unknown) => string | undefined = JSON.stringify;
export const jsonParse: (text: string) => unknown = JSON.parse;
export const isArray: (value: unknown) => value is unknown[] = Array.isArray;
export const objectCreate = Object.create;

/** `String(value)` as it was. */
export const toText = String;

/** A plain record without a prototype (no inherited `then`, `toJSON`, ...). */
export function record<T extends object>(fields: T): T {
  const out = objectCreate(null) as T;
  for (const key in fields) if (apply(hasOwn, fields, [key])) out[key] = fields[key];
  return out;
}

/** A box for a value carried through the PDK's promises. */
export interface Box<T> {
  readonly value: T;
}
export const box = <T>(value: T): Box<T> => record({ value });

/**
 * True for a native promise, or an object whose `then` is a function of its own kind: a `then`
 * someone added to `Object.prototype` does not make every answer a promise.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  if (value instanceof PromiseCtor) return true;
  const then = (value as { then?: unknown }).then;
  return typeof then === 'function' && then !== getOwnPropertyDescriptor(objectProto, 'then')?.value;
}

/** `promise.then(ok, fail)` with the original `then`; a foreign thenable is adopted first. */
export function then<T, U>(promise: PromiseLike<T>, ok: (value: T) => U, fail?: (error: unknown) => U): Promise<U> {
  const native = promise instanceof PromiseCtor ? promise : new PromiseCtor<T>((resolve, reject) => void apply(promise.then, promise, [resolve, reject]));
  return apply(promiseThen, native, [ok, fail]) as Promise<U>;
}

/** Map and Set operations with the original methods. */
export const mapOps = {
  get: <K, V>(m: Map<K, V>, k: K): V | undefined => apply(mapGet, m, [k]),
  set: <K, V>(m: Map<K, V>, k: K, v: V): void => void apply(mapSet, m, [k, v]),
  has: <K, V>(m: Map<K, V>, k: K): boolean => apply(mapHas, m, [k]),
  delete: <K, V>(m: Map<K, V>, k: K): boolean => apply(mapDelete, m, [k]),
};
export const setOps = {
  add: <T>(s: Set<T>, v: T): void => void apply(setAdd, s, [v]),
  delete: <T>(s: Set<T>, v: T): boolean => apply(setDelete, s, [v]),
};

/** `list.includes(value)` without Array.prototype. */
export function includes<T>(list: readonly T[], value: T): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
}

/** `text.includes(part)` with the original `String.prototype.indexOf`. */
export function textIncludes(text: string, part: string): boolean {
  return (apply(stringIndexOf, text, [part]) as number) !== -1;
}
