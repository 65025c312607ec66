/**
 * The host's side of streamed-artifact back-pressure: how much a sink (`onArtifact`) has taken
 * and not yet finished (its promises unsettled), in content characters and artifacts. Past
 * either bound, {@link StreamWindow.take} returns a promise that settles once the sink is back
 * under both; the notification handler returns it, and the rpc peer holds the extension back
 * until then (rpc/dispatcher.ts, Transport.pause). What the host holds of a stream is so
 * bounded by the window plus what the transport had in flight, however fast the guest emits.
 */

/** Content characters (≈ bytes: UTF-8 text, or base64) a sink may have in hand before the extension is held back. */
export const STREAM_WINDOW_BYTES = 16 * 1024 * 1024;
/**
 * Artifacts a sink may have in hand at once. 64 concurrent writes keep a disk busy (the stager
 * writes each file as it arrives, concurrently), while a stream of small files is not held back
 * by the byte bound alone: each pending file costs a handle and a promise chain too.
 */
export const STREAM_WINDOW_ARTIFACTS = 64;

/** The bounds of a {@link StreamWindow}. */
export interface StreamWindowLimits {
  /** Default {@link STREAM_WINDOW_BYTES}. */
  maxBytes?: number;
  /** Default {@link STREAM_WINDOW_ARTIFACTS}. */
  maxArtifacts?: number;
}

/** What a sink has in hand; see the file comment. */
export interface StreamWindow {
  /**
   * Counts `work` (the sink's promise for an artifact of `size` characters) until it settles.
   * Returns a promise when the sink is now over a bound (settles once it is back under both,
   * or at {@link StreamWindow.release}), else undefined.
   */
  take(size: number, work: Promise<unknown>): Promise<void> | undefined;
  /** Settles once every counted promise has. */
  settled(): Promise<void>;
  /** Settles every promise {@link StreamWindow.take} returned: nothing is held back any more. */
  release(): void;
}

/** Creates an empty window. */
export function createStreamWindow(limits: StreamWindowLimits = {}): StreamWindow {
  const maxBytes = limits.maxBytes ?? STREAM_WINDOW_BYTES;
  const maxArtifacts = limits.maxArtifacts ?? STREAM_WINDOW_ARTIFACTS;
  const inHand = new Set<Promise<unknown>>();
  let bytes = 0;
  let drained: { promise: Promise<void>; resolve: () => void } | undefined;
  const over = (): boolean => bytes > maxBytes || inHand.size > maxArtifacts;
  const open = (): void => {
    const waiting = drained;
    drained = undefined;
    waiting?.resolve();
  };
  return {
    take(size, work) {
      inHand.add(work);
      bytes += size;
      const done = (): void => {
        inHand.delete(work);
        bytes -= size;
        if (!over()) open();
      };
      // Only counted here: the caller observes the outcome (this chain must not reject unobserved).
      work.then(done, done);
      if (!over()) return undefined;
      if (drained === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        drained = { promise, resolve };
      }
      return drained.promise;
    },
    async settled() {
      while (inHand.size > 0) await Promise.allSettled([...inHand]);
    },
    release: open,
  };
}
