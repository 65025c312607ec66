/**
 * Runs the PDK's library code (zod checking a request's params and a handler's answer) with the
 * built-ins as they were when the PDK loaded, whatever the extension has done to them since. zod
 * uses the global built-ins (`Array.prototype.push`, array iteration, `JSON.stringify`,
 * `Object.keys`, …); an extension that replaced one would otherwise break the checks of its own
 * answer, or see zod's calls. Around such a call, every property of the guarded built-ins that
 * differs from what was taken at load is put back, and an added one (an enumerable
 * `Object.prototype.then`) is taken away; the extension's versions are restored afterwards. When
 * nothing was changed (the usual case) this costs one comparison per property.
 */

const { apply, defineProperty, deleteProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;

type Taken = { target: object; key: PropertyKey; desc: PropertyDescriptor; accessor: boolean };

const guarded: object[] = [
  globalThis, Object, Object.prototype, Array, Array.prototype, String, String.prototype, Number, Number.prototype,
  Boolean.prototype, Symbol, Function.prototype, JSON, Promise, Promise.prototype, Map.prototype, Set.prototype,
  WeakMap.prototype, WeakSet.prototype, RegExp, RegExp.prototype, Date, Date.prototype, Math, Reflect, Error, Error.prototype,
  BigInt, BigInt.prototype,
];
const GLOBAL_NAMES = new Set<PropertyKey>(['Object', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'Function', 'JSON', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'RegExp', 'Date', 'Math', 'Reflect', 'Error', 'TypeError', 'RangeError', 'SyntaxError', 'BigInt', 'parseInt', 'parseFloat', 'isNaN', 'isFinite']);

const taken: Taken[] = [];
const keyCounts: number[] = [];
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
const known = new Map<object, Set<PropertyKey>>();
for (const t of taken) {
  if (!known.has(t.target)) known.set(t.target, new Set());
  known.get(t.target)!.add(t.key);
}

const same = (a: PropertyDescriptor | undefined, b: PropertyDescriptor): boolean =>
  a !== undefined && a.value === b.value && a.get === b.get && a.set === b.set;
const mapGet = Map.prototype.get;
const setHas = Set.prototype.has;

/**
 * Calls `fn` with the built-ins as the PDK found them; the extension's changes are back
 * afterwards. (Index loops only: the extension may have replaced array iteration itself.)
 */
export function pristine<T>(fn: () => T): T {
  const undo: { target: object; key: PropertyKey; desc: PropertyDescriptor | undefined }[] = [];
  for (let i = 0; i < taken.length; i++) {
    const t = taken[i]!;
    // A data property is compared by reading it (no descriptor to allocate): the usual case.
    if (t.accessor ? same(getOwnPropertyDescriptor(t.target, t.key), t.desc) : (t.target as Record<PropertyKey, unknown>)[t.key as string] === t.desc.value) continue;
    const now = getOwnPropertyDescriptor(t.target, t.key);
    if (now && !now.configurable) continue;
    if (defineProperty(t.target, t.key, t.desc)) undo[undo.length] = { target: t.target, key: t.key, desc: now };
  }
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
