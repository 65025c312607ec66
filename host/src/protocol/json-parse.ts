/**
 * The one JSON parser of the host: every text the host parses (its files, inputs, messages from
 * extensions and clients) goes through {@link parseJson}. `JSON.parse` itself makes a key such as
 * `__proto__` an own member, which is inert, but code that copies members by assignment turns it
 * into a prototype, and a `constructor` member shadows what readers look up by that name. So a
 * document whose keys are a fixed schema (the lock, the configuration, a manifest, morphir.json,
 * the publish journal) is refused when it holds such a key anywhere, except where its keys are
 * the user's data (extension ids, environment names, pinned claims), where they stay plain own
 * members; messages and IR are data throughout. No I/O.
 */

import { checkNumbers } from './json-numbers.ts';

/** Keys that reach or shadow the prototype machinery of an object. */
export const HOSTILE_KEYS: readonly string[] = Object.freeze(['__proto__', 'constructor', 'prototype']);

/**
 * How the keys of a document are read: `'data'` keeps every key as a plain own member (messages,
 * IR); otherwise `dataAt` says at which object paths keys are data (default: nowhere), a
 * hostile key anywhere else is refused with {@link HostileKeyError}, and a key written twice in
 * one object anywhere with {@link DuplicateKeyError}.
 */
export type JsonKeyPolicy =
  | 'data'
  | {
      dataAt?: (path: readonly string[]) => boolean;
      /** `'signed'`: a document only this user's mep writes, signed (the compile baseline): its keys are not scanned for duplicates (a pass over the text as long as parsing it). */
      duplicates?: 'signed';
    };

/** A document with a hostile key where its keys are a fixed schema. */
export class HostileKeyError extends SyntaxError {
  override readonly name = 'HostileKeyError';
  constructor(
    /** The key found. */
    readonly key: string,
    /** The path of the object that holds it. */
    readonly path: readonly string[],
  ) {
    super(`the key ${JSON.stringify(key)} at ${path.length === 0 ? 'the top level' : path.join('.')} is not allowed (it would reach or shadow a prototype)`);
  }
}

/**
 * A document whose keys are a fixed schema spelling one key twice in an object: `JSON.parse`
 * keeps the last, a reader of the file (a reviewer, a diff) sees the first (`"runtime": "wasm"`
 * at the top, `"runtime": "process"` further down), so the two read two documents.
 */
export class DuplicateKeyError extends SyntaxError {
  override readonly name = 'DuplicateKeyError';
  constructor(
    readonly key: string,
    readonly path: readonly string[],
  ) {
    super(`the key ${JSON.stringify(key)} is written twice in the object at ${path.length === 0 ? 'the top level' : path.join('.')} (JSON.parse keeps the last, a reader sees the first)`);
  }
}

// A hostile key is spelled out, or written with escapes of ASCII letters (`\u005f_proto__`).
const MAY_HOLD = /__proto__|constructor|prototype|\\u00[0-7][0-9a-f]/i;

/**
 * Parses one JSON text (throws `SyntaxError` on bad JSON, and `UnheldNumberError` for a number no
 * double holds, json-numbers.ts) under `policy` (default: fixed keys everywhere). A text that cannot hold a hostile key (most) is not walked.
 *
 * @example
 * const lock = parseJson(text, { dataAt: (path) => path.length === 1 && path[0] === 'extensions' });
 */
export function parseJson(text: string, policy: JsonKeyPolicy = {}): unknown {
  const value: unknown = JSON.parse(text);
  checkNumbers(text);
  if (policy === 'data') return value;
  const twice = policy.duplicates === 'signed' ? undefined : findDuplicateKey(text);
  if (twice) throw new DuplicateKeyError(twice.key, twice.path);
  if (!MAY_HOLD.test(text)) return value;
  const found = findHostileKey(value, policy.dataAt ?? (() => false));
  if (found) throw new HostileKeyError(found.key, found.path);
  return value;
}

/** The first hostile key in `value` outside the data paths, walked without recursion. */
function findHostileKey(value: unknown, dataAt: (path: readonly string[]) => boolean): { key: string; path: string[] } | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: at, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof at !== 'object' || at === null) continue;
    const isArray = Array.isArray(at);
    const checked = !isArray && !dataAt(path);
    for (const key of Object.keys(at)) {
      if (checked && HOSTILE_KEYS.includes(key)) return { key, path };
      const child = (at as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, path: [...path, isArray ? '*' : key] });
    }
  }
  return undefined;
}

/**
 * The first key an object of `text` (valid JSON: it parsed) holds twice, decoded (`"r\u0075ntime"`
 * is `runtime`), and the path of that object; one pass over the text, no recursion.
 */
function findDuplicateKey(text: string): { key: string; path: string[] } | undefined {
  type Open = { keys: Set<string> | undefined; path: string[]; last: string; keyNext: boolean };
  const stack: Open[] = [];
  const pathOf = (top: Open | undefined): string[] => (top ? [...top.path, top.keys ? top.last : '*'] : []);
  const marks = /["{}[\],]/g;
  for (let mark = marks.exec(text); mark !== null; mark = marks.exec(text)) {
    const at = mark.index;
    const c = text.charCodeAt(at);
    if (c === 0x22) {
      let end = text.indexOf('"', at + 1);
      for (let b = end - 1; ; b = end - 1) {
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((end - 1 - b) % 2 === 0) break; // an even run of backslashes: this quote ends the string
        end = text.indexOf('"', end + 1);
      }
      marks.lastIndex = end + 1;
      const top = stack[stack.length - 1];
      if (!top?.keys || !top.keyNext) continue;
      const raw = text.slice(at + 1, end);
      const key = raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
      if (top.keys.has(key)) return { key, path: top.path };
      top.keys.add(key);
      top.last = key;
      top.keyNext = false;
    } else if (c === 0x7b || c === 0x5b) {
      stack.push({ keys: c === 0x7b ? new Set() : undefined, path: pathOf(stack[stack.length - 1]), last: '', keyNext: c === 0x7b });
    } else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (stack.length > 0) stack[stack.length - 1]!.keyNext = true;
  }
  return undefined;
}
