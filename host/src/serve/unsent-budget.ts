/**
 * Answers written to `mep serve`'s socket and stdio clients and not taken by them yet, over all
 * clients. Each connection is bounded alone (`maxPendingBytes`); this bounds them together, as
 * the HTTP binding's `maxPendingBytes` does its clients': past `maxBytes`, the client holding the
 * most unread bytes (a client that stopped reading, not one that reads behind) is dropped, its
 * sessions closed, until the rest fit. Platform-neutral.
 */

/** One client's place in an {@link UnsentBudget}. */
export interface UnsentClient {
  readonly name: string;
  /** Bytes written to it and not taken yet. */
  pending(): number;
  /** Drop it (its sessions closed), saying why. */
  drop(reason: string, data: Record<string, unknown>): void;
}

/** What a client's transport tells the budget. */
export interface UnsentSlot {
  /** Its unread bytes changed (after a write, on a drain). May drop this client or another. */
  update(): void;
  /** It is gone. */
  leave(): void;
}

/** See the file's comment. */
export interface UnsentBudget {
  readonly maxBytes: number;
  join(client: UnsentClient): UnsentSlot;
}

/** Default of the server's bound: two clients at their own bound, at least 256 MiB. */
export const DEFAULT_SERVE_MAX_UNSENT_BYTES = 256 * 1024 * 1024;

export function createUnsentBudget(maxBytes: number): UnsentBudget {
  const held = new Map<UnsentClient, number>();
  let total = 0;
  const set = (client: UnsentClient, bytes: number): void => {
    total += bytes - (held.get(client) ?? 0);
    held.set(client, bytes);
  };
  const enforce = (): void => {
    if (total <= maxBytes) return;
    // What was counted may be stale (a client takes bytes without a drain event): count again.
    for (const client of held.keys()) set(client, client.pending());
    while (total > maxBytes) {
      let worst: UnsentClient | undefined;
      let most = 0;
      for (const [client, bytes] of held) {
        if (bytes > most) {
          most = bytes;
          worst = client;
        }
      }
      if (worst === undefined) return;
      total -= most;
      held.delete(worst);
      worst.drop(
        `${worst.name} was dropped: ${most} bytes of answers were waiting to be read, the most of any client, and unread answers over all clients passed ${maxBytes} bytes (maxUnsentBytes); a client must read what it asked for. Its sessions are closed.`,
        { limit: 'maxUnsentBytes', limitBytes: maxBytes, pendingBytes: most },
      );
    }
  };
  return {
    maxBytes,
    join(client) {
      set(client, 0);
      return {
        update() {
          if (!held.has(client)) return;
          set(client, client.pending());
          enforce();
        },
        leave() {
          total -= held.get(client) ?? 0;
          held.delete(client);
        },
      };
    },
  };
}
