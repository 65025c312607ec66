/**
 * Bounded memos for the backend's pure string functions (spellings, validity checks, digests):
 * a model asks the same questions thousands of times, and in QuickJS one map look-up is far
 * cheaper than recomputing. Cleared when full, so one long-lived guest instance does not keep
 * every key it ever saw.
 */

/** Most entries one memo keeps before it starts over. */
export const MEMO_ENTRIES = 100_000;

/** `compute`, remembered per key. */
export function memoized<V>(compute: (key: string) => V): (key: string) => V {
  const memo = new Map<string, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      value = compute(key);
      memo.set(key, value);
    }
    return value;
  };
}
