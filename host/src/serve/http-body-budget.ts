/**
 * The request bodies `mep serve --http` holds at once. One body is bounded by `--max-message`,
 * but a parsed body costs the host up to ~20× its bytes (64 MiB of `[{},{},…]` is 1.4 GB of
 * heap), and nothing bounded how many clients had one read and parsed at once. Each request reserves its body's bytes (declared, or the
 * largest body when chunked, given back down to its size once read) before a byte of it is read,
 * and keeps them until its answer is written; a request that does not fit waits unread, in arrival order. Platform-neutral.
 *
 * Not the same helper as the budget of unfinished lines and frames (framing/held-budget.ts),
 * though both count bytes against a server-wide total: that one charges bytes already in memory
 * and can only refuse (a reader that waited for another's unfinished input could wait for
 * ever), while a body's size is known (or bounded) before it is read, so it is reserved whole
 * and its request waits unread, in order. Built on one core, each would need the other's
 * policy switched off; the shared part is a counter.
 */

/** A reservation; `release` is idempotent. */
export interface BodyReservation {
  /** Keeps only `bytes` of it (a chunked body, once its real size is known), giving the rest back. */
  shrink(bytes: number): void;
  release(): void;
}

/** See the file's comment. */
export interface BodyBudget {
  /**
   * Reserves `bytes`; resolves when they fit, or with undefined when `signal` aborts first (the
   * client left, or it waited too long).
   */
  reserve(bytes: number, signal: AbortSignal): Promise<BodyReservation | undefined>;
  /** Bytes reserved now. */
  readonly held: number;
}

/**
 * A budget of `totalBytes` (at least the largest single body, so every body fits alone).
 *
 * @example
 * const budget = createBodyBudget(128 << 20);
 * const held = await budget.reserve(declared, signal); try { … } finally { held?.release(); }
 */
export function createBodyBudget(totalBytes: number): BodyBudget {
  let held = 0;
  const waiting: { bytes: number; grant: () => void }[] = [];
  const grantWaiting = (): void => {
    // In arrival order: a large body is not starved by small ones passing it.
    while (waiting.length > 0 && held + (waiting[0] as { bytes: number }).bytes <= totalBytes) (waiting.shift() as { grant: () => void }).grant();
  };
  const reservation = (reserved: number): BodyReservation => {
    held += reserved;
    let kept = reserved;
    let released = false;
    return {
      shrink(bytes) {
        if (released || bytes >= kept) return;
        held -= kept - bytes;
        kept = bytes;
        grantWaiting();
      },
      release() {
        if (released) return;
        released = true;
        held -= kept;
        grantWaiting();
      },
    };
  };
  return {
    get held() {
      return held;
    },
    reserve(bytes, signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      if (waiting.length === 0 && held + bytes <= totalBytes) return Promise.resolve(reservation(bytes));
      return new Promise((resolve) => {
        const entry = {
          bytes,
          grant: () => {
            signal.removeEventListener('abort', onAbort);
            resolve(reservation(bytes));
          },
        };
        const onAbort = (): void => {
          const at = waiting.indexOf(entry);
          if (at >= 0) waiting.splice(at, 1);
          resolve(undefined);
          grantWaiting();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.push(entry);
      });
    },
  };
}
