/** Bounded parallelism for the file work of publishing: writes, links, moves. */

/**
 * Runs `fn` over `items` with at most `limit` in flight. After a failure no item starts, and the
 * first failure is thrown once every call in flight has settled, so that nothing is still
 * writing or moving while the caller cleans up.
 *
 * @example
 * await forEachLimited(files, 8, (file) => writeOne(file));
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}
