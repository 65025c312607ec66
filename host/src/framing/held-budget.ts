/**
 * A budget of bytes that have already arrived and are held unfinished, shared by many readers:
 * the unfinished request lines of all of `mep serve`'s connections (serve/line-transport.ts), the
 * unfinished frames of all its process extensions' sessions (transport/process). Each reader has
 * an account that says how much it holds now; when a reader's `hold` takes the total past
 * `maxBytes`, it is refused (the reader ends, and gives its bytes back), never waited for: the
 * bytes are in memory already, and a reader waiting on another's unfinished input could wait
 * for ever. (The HTTP body budget, serve/http-body-budget.ts, is the other policy: it reserves
 * a body before a byte of it is read, so a request can wait unread.) Platform-neutral.
 */

/** One reader's account of a {@link HeldBudget}. */
export interface HeldAccount {
  /** Sets what this reader holds now; false when that takes the total past the budget (0 always fits). */
  hold(bytes: number): boolean;
  /** Gives everything back (idempotent). */
  release(): void;
}

/** See the file's comment. */
export interface HeldBudget {
  readonly maxBytes: number;
  /** Bytes held now, over all accounts. */
  readonly held: number;
  account(): HeldAccount;
}

/**
 * A budget of `maxBytes` shared by its accounts.
 *
 * @example
 * const budget = createHeldBudget(128 << 20);
 * const mine = budget.account();
 * if (!mine.hold(decoder.bufferedBytes)) refuse();
 */
export function createHeldBudget(maxBytes: number): HeldBudget {
  let total = 0;
  return {
    maxBytes,
    get held() {
      return total;
    },
    account() {
      let held = 0;
      return {
        hold(bytes) {
          total += bytes - held;
          held = bytes;
          return bytes === 0 || total <= maxBytes;
        },
        release() {
          total -= held;
          held = 0;
        },
      };
    },
  };
}
