/**
 * What the guest can say about an answer it could not write. When serializing a result runs out
 * of memory (QuickJS: `InternalError: out of memory` at the sandbox's cap; V8: `RangeError:
 * Invalid string length` past its largest string), the host learns only "out of memory" unless
 * the guest tells it how big the answer is: then it can say at once which limits to raise (memory,
 * and the message size the answer would exceed next) instead of one retry per limit.
 */

/** True for the errors a JSON engine throws when a string or its memory runs out. */
export function isOutOfMemory(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (error.name === 'InternalError' && /out of memory/i.test(error.message)) || (error instanceof RangeError && /invalid string length/i.test(error.message));
}

const MAX_DEPTH = 4096;

/**
 * A lower bound of the bytes `JSON.stringify(value)` writes (each UTF-16 unit of a string is at
 * least one UTF-8 byte), computed without building the text and allocating almost nothing (the
 * walk runs right after memory ran out). Objects with `toJSON` count as two bytes, since what they
 * turn into is unknown; nesting past 4,096 levels counts nothing more.
 */
export function jsonBytesAtLeast(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'bigint':
      return 1;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      break;
    default:
      return 0;
  }
  if (value === null) return 4;
  if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return 2;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      // An item stringify cannot write (undefined, a function) is written as null.
      const item = jsonBytesAtLeast(value[i], depth + 1);
      bytes += (item === 0 ? 4 : item) + (i > 0 ? 1 : 0);
    }
    return bytes;
  }
  let first = true;
  for (const key in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const member = jsonBytesAtLeast((value as Record<string, unknown>)[key], depth + 1);
    // Members that stringify skips (undefined, functions, symbols) count 0 and add no key.
    if (member === 0) continue;
    bytes += key.length + 3 + member + (first ? 0 : 1);
    first = false;
  }
  return bytes;
}
