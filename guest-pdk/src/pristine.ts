/**
 * Runs the PDK's library code (zod checking a request's params and a handler's answer) with the
 * built-ins as they were when the PDK loaded, whatever the extension has done to them since. zod
 * uses the global built-ins (`Array.prototype.push`, array iteration, `JSON.stringify`,
 * `Object.keys`, …); an extension that replaced one would otherwise break the checks of its own
 * answer, or see zod's calls. Around such a call, every property of the guarded built-ins that
 * differs from what was taken at load is put back, and an added one (an enumerable
 * `Object.prototype.then`) is taken away; the extension's versions are restored afterwards. When
 * nothing was changed (the usual case) this costs one comparison per property.
 *
 * The engine's console, inspect and URL (build/engine/glue/globals/) and the process console run
 * under {@link withBuiltins}: replaced or deleted built-ins are put back, what the extension
 * added stays (Node's own console and URL would meet it too). Code of the extension's that such
 * a call runs (a `toString` of a logged object, a URL given as an object) runs with the
 * built-ins put back as well.
 */

const { apply, defineProperty, deleteProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;

type Taken = { target: object; key: PropertyKey; desc: PropertyDescriptor; accessor: boolean };

const protoOf = Object.getPrototypeOf;
const guarded: object[] = [
  globalThis, Object, Object.prototype, Array, Array.prototype, String, String.prototype, Number, Number.prototype,
  Boolean.prototype, Symbol, Symbol.prototype, Function.prototype, JSON, Promise, Promise.prototype, Map.prototype, Set.prototype,
  WeakMap.prototype, WeakSet.prototype, RegExp, RegExp.prototype, Date, Date.prototype, Math, Reflect, Error, Error.prototype,
  BigInt, BigInt.prototype, ArrayBuffer.prototype, protoOf(Uint8Array.prototype),
  // The iterators `for…of`, spreading and destructuring step with.
  protoOf([][Symbol.iterator]()), protoOf(''[Symbol.iterator]()), protoOf(new Map()[Symbol.iterator]()), protoOf(new Set()[Symbol.iterator]()),
  protoOf(/./[Symbol.matchAll]('')),
];
const GLOBAL_NAMES = new Set<PropertyKey>(['Object', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'Function', 'JSON', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'RegExp', 'Date', 'Math', 'Reflect', 'Error', 'TypeError', 'RangeError', 'SyntaxError', 'BigInt', 'parseInt', 'parseFloat', 'isNaN', 'isFinite']);

let taken: Taken[] = [];
// The data properties again as flat arrays: the check below reads three arrays per property (in
// the wasm engine, an object per entry made it several times slower).
let dataTargets: Record<PropertyKey, unknown>[] = [];
let dataKeys: string[] = [];
let dataValues: unknown[] = [];
let dataTaken: Taken[] = [];
let accessors: Taken[] = [];
let keyCounts: number[] = [];
let known = new Map<object, Set<PropertyKey>>();

/**
 * Takes the built-ins as they are now as the ones to put back: done when this module is
 * evaluated, and again by a platform that installs its own (the engine's locale methods, the
 * process clock) before any extension code runs.
 */
export function takeBuiltins(): void {
  taken = [];
  keyCounts = [];
  known = new Map();
  for (const target of guarded) {
    const keys = ownKeys(target);
    keyCounts.push(target === globalThis ? 0 : keys.length);
    for (const key of keys) {
      if (target === globalThis && !GLOBAL_NAMES.has(key)) continue;
      const desc = getOwnPropertyDescriptor(target, key)!;
      if (!desc.configurable && !desc.writable) continue; // nothing can change it
      taken.push({ target, key, desc, accessor: !('value' in desc) });
    }
  }
  dataTargets = [];
  dataKeys = [];
  dataValues = [];
  dataTaken = [];
  accessors = [];
  for (const t of taken) {
    if (!known.has(t.target)) known.set(t.target, new Set());
    known.get(t.target)!.add(t.key);
    if (t.accessor) accessors.push(t);
    else {
      dataTargets.push(t.target as Record<PropertyKey, unknown>);
      dataKeys.push(t.key as string);
      dataValues.push(t.desc.value);
      dataTaken.push(t);
    }
  }
}
takeBuiltins();

const same = (a: PropertyDescriptor | undefined, b: PropertyDescriptor): boolean =>
  a !== undefined && a.value === b.value && a.get === b.get && a.set === b.set;
const mapGet = Map.prototype.get;
const setHas = Set.prototype.has;

type Undo = { target: object; key: PropertyKey; desc: PropertyDescriptor | undefined }[];

/**
 * Calls `fn` with the built-ins as the PDK found them; the extension's changes are back
 * afterwards. (Index loops only: the extension may have replaced array iteration itself.)
 */
export function pristine<T>(fn: () => T): T {
  const undo = putBack();
  takeAdded(undo);
  return runUndoing(fn, undo);
}

/**
 * Calls `fn` with the replaced or deleted built-ins put back, leaving what the extension added
 * (the console's and URL's guard: Node's would meet an added property too); one comparison per
 * property when nothing was replaced.
 */
export function withBuiltins<T>(fn: () => T): T {
  return runUndoing(fn, putBack());
}

/**
 * Makes every method and accessor of `target` (but `except`) run {@link withBuiltins}, keeping
 * its name and length (not constructible, as a class method).
 */
export function guardMethods(target: object, except: readonly PropertyKey[] = []): void {
  const keys = ownKeys(target);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (key === 'constructor' || except.includes(key)) continue;
    const desc = getOwnPropertyDescriptor(target, key)!;
    for (const part of PARTS) {
      const original = desc[part] as ((...args: unknown[]) => unknown) | undefined;
      if (typeof original !== 'function') continue;
      const wrapped = {
        method(this: unknown, ...args: unknown[]): unknown {
          return withBuiltins(() => apply(original, this, args));
        },
      }.method;
      defineProperty(wrapped, 'name', { value: original.name, configurable: true });
      defineProperty(wrapped, 'length', { value: original.length, configurable: true });
      desc[part] = wrapped;
    }
    defineProperty(target, key, desc);
  }
}
const PARTS = ['value', 'get', 'set'] as const;

/** Puts back each guarded property that differs from what was taken at load. */
function putBack(): Undo {
  const undo: Undo = [];
  const targets = dataTargets;
  const keys = dataKeys;
  const values = dataValues;
  for (let i = 0; i < targets.length; i++) {
    if (targets[i]![keys[i]!] !== values[i]) restore(dataTaken[i]!, undo);
  }
  for (let i = 0; i < accessors.length; i++) {
    const t = accessors[i]!;
    if (!same(getOwnPropertyDescriptor(t.target, t.key), t.desc)) restore(t, undo);
  }
  return undo;
}

function restore(t: Taken, undo: Undo): void {
  const now = getOwnPropertyDescriptor(t.target, t.key);
  if (now && !now.configurable) return;
  if (defineProperty(t.target, t.key, t.desc)) undo[undo.length] = { target: t.target, key: t.key, desc: now };
}

/** Takes away what the extension added to the guarded objects (restored by the undo). */
function takeAdded(undo: Undo): void {
  for (let i = 0; i < guarded.length; i++) {
    const target = guarded[i]!;
    if (target === globalThis) continue;
    const keys = ownKeys(target);
    if (keys.length === keyCounts[i]) continue;
    const mine = apply(mapGet, known, [target]) as Set<PropertyKey> | undefined;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (mine && apply(setHas, mine, [key])) continue;
      const desc = getOwnPropertyDescriptor(target, key)!;
      if (desc.configurable && deleteProperty(target, key)) undo[undo.length] = { target, key, desc };
    }
  }
}

function runUndoing<T>(fn: () => T, undo: Undo): T {
  if (undo.length === 0) return fn();
  try {
    return fn();
  } finally {
    for (let i = undo.length - 1; i >= 0; i--) {
      const u = undo[i]!;
      if (u.desc) defineProperty(u.target, u.key, u.desc);
      else deleteProperty(u.target, u.key);
    }
  }
}
