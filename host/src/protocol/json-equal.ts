/**
 * Structural equality of JSON values, the comparison the spec means by "has the value" (claim
 * agreement rule 4) and by "a comparison of equal documents" (claim sets across phases).
 */

/**
 * True when two JSON values are equal: arrays element by element in order, objects by key set
 * regardless of key order, with `undefined` members counted as absent.
 *
 * @example
 * jsonEqual({ a: [1, 2], b: undefined }, { a: [1, 2] }) // true
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && jsonEqual(ra[k], rb[k]));
}
