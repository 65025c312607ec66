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
 *
 * Each client (its remote address) holds at most its share of the budget: a chunked body
 * reserves the largest body before a byte of it arrives, so without a share one client's heads
 * held the whole budget and, waiting ahead of everyone, kept it. A body held back by its own
 * client's share lets the bodies of other clients behind it pass; otherwise arrival order holds.
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
   * Reserves `bytes` for `client` (default one client for all); resolves when they fit the
   * budget and the client's share, or with undefined when `signal` aborts first (the client
   * left, or it waited too long).
   */
  reserve(bytes: number, signal: AbortSignal, client?: string): Promise<BodyReservation | undefined>;
  /** Bytes reserved now. */
  readonly held: number;
}

interface Waiting {
  bytes: number;
  client: string;
  grant: () => void;
}

/**
 * A budget of `totalBytes` (at least the largest single body, so every body fits alone), of which
 * one client holds at most `perClientBytes` (a client holding nothing may always take one body).
 *
 * @example
 * const budget = createBodyBudget(128 << 20, 64 << 20);
 * const held = await budget.reserve(declared, signal, client); try { … } finally { held?.release(); }
 */
export function createBodyBudget(totalBytes: number, perClientBytes = totalBytes): BodyBudget {
  let held = 0;
  const byClient = new Map<string, number>();
  const waiting: Waiting[] = [];
  const charge = (client: string, bytes: number): void => {
    held += bytes;
    const now = (byClient.get(client) ?? 0) + bytes;
    if (now === 0) byClient.delete(client);
    else byClient.set(client, now);
  };
  const withinShare = (entry: Waiting): boolean => {
    const own = byClient.get(entry.client) ?? 0;
    return own === 0 || own + entry.bytes <= perClientBytes;
  };
  /** True when a body waits for the budget (not for its client's share): every body behind it waits too. */
  let stalled = false;
  /** Grants what fits from `from` on (an arrival looks at itself only: what is ahead of it was looked at). */
  const grantWaiting = (from = 0): void => {
    stalled = false;
    for (let at = from; at < waiting.length; ) {
      const entry = waiting[at] as Waiting;
      // In arrival order: a large body is not starved by small ones passing it.
      if (held + entry.bytes > totalBytes) {
        stalled = true;
        return;
      }
      // Held back by its own client's share: the bodies of other clients behind it pass.
      if (!withinShare(entry)) {
        at++;
        continue;
      }
      waiting.splice(at, 1);
      entry.grant();
    }
  };
  const reservation = (client: string, reserved: number): BodyReservation => {
    charge(client, reserved);
    let kept = reserved;
    let released = false;
    return {
      shrink(bytes) {
        if (released || bytes >= kept) return;
        charge(client, bytes - kept);
        kept = bytes;
        grantWaiting();
      },
      release() {
        if (released) return;
        released = true;
        charge(client, -kept);
        grantWaiting();
      },
    };
  };
  return {
    get held() {
      return held;
    },
    reserve(bytes, signal, client = '') {
      if (signal.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const entry: Waiting = {
          bytes,
          client,
          grant: () => {
            signal.removeEventListener('abort', onAbort);
            resolve(reservation(client, bytes));
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
        if (!stalled) grantWaiting(waiting.length - 1);
      });
    },
  };
}
