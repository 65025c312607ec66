/**
 * The sending half of a peer: request ids, the pending map, deadlines and cancellation.
 *
 * Cancellation rejects at once. vscode-jsonrpc keeps the caller waiting for the server's
 * -32800; a host cannot, because MEP 0.1 cancellation is cooperative ("The host may terminate an
 * unresponsive native process") and Ctrl+C or a deadline must unblock the caller even when the
 * extension never answers. The id stays reserved ("abandoned") until its late response arrives
 * or the connection closes, so it is never reused while the extension may still answer it, and
 * that late response is dropped quietly instead of being reported as an unknown id.
 */
import { raiseAdvice } from '../protocol/limits.ts';
import { ErrorCode, LocalErrorCode, MepError } from '../protocol/errors.ts';
import { setLongTimeout, type CancelTimer } from '../transport/long-timer.ts';
import type { JsonRpcErrorObject, JsonRpcId } from './message.ts';

/** What happened to an incoming response. */
export type SettleOutcome = 'settled' | 'abandoned' | 'unknown';

/** Bookkeeping for requests this side sent; see {@link createPending}. */
export interface PendingRequests {
  /** Allocate an id, register the request, send it with `send`, and arm deadline and signal. */
  start(method: string, timeoutMs: number, options: { signal?: AbortSignal; id?: JsonRpcId }, send: (id: JsonRpcId) => void): Promise<unknown>;
  /** Settle with a result. */
  resolve(id: JsonRpcId, result: unknown): SettleOutcome;
  /** Settle with an error response from the other side. */
  rejectWire(id: JsonRpcId, error: JsonRpcErrorObject): SettleOutcome;
  /** Settle with a locally detected error (e.g. a malformed response for this id). */
  rejectLocal(id: JsonRpcId, error: MepError): SettleOutcome;
  /** Reject every pending request and forget abandoned ids (the connection ended). */
  rejectAll(errorFor: (method: string) => MepError): void;
  /** Resolves once no abandoned id waits for its late answer (at once when none does). */
  abandonedAnswered(): Promise<void>;
  /** Ids given up on (cancelled, timed out) whose late answer has not come yet. */
  readonly abandoned: number;
}

interface Entry {
  method: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

function isValidId(id: unknown): id is JsonRpcId {
  return typeof id === 'string' || Number.isSafeInteger(id);
}

/** Create the pending-request table; `abandon` is told about every cancelled or timed-out id. */
export function createPending(options: { name: string; abandon(id: JsonRpcId): void }): PendingRequests {
  const { name } = options;
  const pending = new Map<JsonRpcId, Entry>();
  const abandoned = new Set<JsonRpcId>();
  let nextId = 1;

  const isActive = (id: JsonRpcId) => pending.has(id) || abandoned.has(id);
  let answeredWaiters: (() => void)[] = [];
  const wakeIfAnswered = (): void => {
    if (abandoned.size > 0) return;
    const waiters = answeredWaiters;
    answeredWaiters = [];
    for (const wake of waiters) wake();
  };

  function take(id: JsonRpcId): Entry | SettleOutcome {
    const entry = pending.get(id);
    if (entry !== undefined) {
      pending.delete(id);
      entry.cleanup();
      return entry;
    }
    if (!abandoned.delete(id)) return 'unknown';
    wakeIfAnswered();
    return 'abandoned';
  }

  function abandon(id: JsonRpcId, error: MepError): void {
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    entry.cleanup();
    abandoned.add(id);
    options.abandon(id);
    entry.reject(error);
  }

  return {
    start(method, timeoutMs, { signal, id: explicitId }, send) {
      if (signal?.aborted) {
        return Promise.reject(new MepError(ErrorCode.RequestCancelled, `${method} to ${name} was cancelled before it was sent.`, { cause: signal.reason }));
      }
      let id: JsonRpcId;
      if (explicitId !== undefined) {
        if (!isValidId(explicitId)) {
          return Promise.reject(new MepError(LocalErrorCode.Usage, `Request id ${JSON.stringify(explicitId)} for ${method} is not a string or an integer.`));
        }
        if (isActive(explicitId)) {
          return Promise.reject(new MepError(LocalErrorCode.Usage, `Request id ${JSON.stringify(explicitId)} is still active on ${name}; ids must not be reused while active.`));
        }
        id = explicitId;
      } else {
        while (isActive(nextId)) nextId++;
        id = nextId++;
      }
      const requestId = id;
      return new Promise<unknown>((resolve, reject) => {
        let cancelTimer: CancelTimer | undefined;
        // Only with a signal (a named closure per request costs a defineProperty under tsx).
        const onAbort =
          signal === undefined
            ? undefined
            : () => abandon(requestId, new MepError(ErrorCode.RequestCancelled, `${method} to ${name} was cancelled.`, { data: { id: requestId }, cause: signal.reason }));
        const entry: Entry = {
          method,
          resolve,
          reject,
          cleanup() {
            cancelTimer?.();
            if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
          },
        };
        pending.set(requestId, entry);
        try {
          send(requestId);
        } catch (error) {
          pending.delete(requestId);
          reject(error);
          return;
        }
        // A synchronous transport may have answered inside send().
        if (pending.get(requestId) !== entry) return;
        if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
          cancelTimer = setLongTimeout(() => {
            abandon(
              requestId,
              new MepError(
                LocalErrorCode.Timeout,
                `${method} to ${name} did not complete within ${timeoutMs} ms; the extension may be stuck, or needs more time. ${raiseAdvice('callTimeoutMs', timeoutMs)}`,
                { data: { method, id: requestId, timeoutMs, extension: name, limit: 'callTimeoutMs' } },
              ),
            );
          }, timeoutMs);
        }
        if (onAbort !== undefined) signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    resolve(id, result) {
      const entry = take(id);
      if (typeof entry === 'string') return entry;
      entry.resolve(result);
      return 'settled';
    },
    rejectWire(id, error) {
      const entry = take(id);
      if (typeof entry === 'string') return entry;
      const options = error.data === undefined ? {} : { data: error.data };
      entry.reject(new MepError(error.code, `${name} answered ${entry.method} with error ${error.code}: ${error.message}`, options));
      return 'settled';
    },
    rejectLocal(id, error) {
      const entry = take(id);
      if (typeof entry === 'string') return entry;
      entry.reject(error);
      return 'settled';
    },
    get abandoned() {
      return abandoned.size;
    },
    abandonedAnswered() {
      if (abandoned.size === 0) return Promise.resolve();
      return new Promise((resolve) => answeredWaiters.push(resolve));
    },
    rejectAll(errorFor) {
      const entries = [...pending.values()];
      pending.clear();
      abandoned.clear();
      wakeIfAnswered();
      for (const entry of entries) {
        entry.cleanup();
        entry.reject(errorFor(entry.method));
      }
    },
  };
}
