/**
 * Test support: a minimal client of the served-host protocol, written the way a client in
 * another language would be (bytes in, lines out, JSON.parse), over any byte sink and source.
 */
import type { JsonRpcMessage } from '../../transport/types.ts';
import { parseJson } from '../../protocol/json-parse.ts';

/** A client; feed it the server's bytes with `push`. */
export interface LineClient {
  /** Send a request; resolves with the whole response message (result or error). */
  request(id: string | number, method: string, params?: unknown): Promise<JsonRpcMessage>;
  /** Send a notification. */
  notify(method: string, params?: unknown): void;
  /** Send raw text (for malformed-input tests). */
  sendRaw(text: string): void;
  /** Every message received, in arrival order. */
  readonly seen: JsonRpcMessage[];
  /** Resolves with the first message (already seen or future) the predicate accepts. */
  next(predicate: (message: JsonRpcMessage) => boolean): Promise<JsonRpcMessage>;
  /** Feed bytes from the server. */
  push(chunk: Uint8Array): void;
}

/** Creates a client that writes through `write`. */
export function createLineClient(write: (bytes: Uint8Array) => void): LineClient {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const seen: JsonRpcMessage[] = [];
  const waiters = new Set<{ predicate: (m: JsonRpcMessage) => boolean; resolve: (m: JsonRpcMessage) => void }>();
  let buffer = '';

  const next = (predicate: (m: JsonRpcMessage) => boolean): Promise<JsonRpcMessage> => {
    const found = seen.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => waiters.add({ predicate, resolve }));
  };
  const send = (message: unknown): void => write(encoder.encode(`${JSON.stringify(message)}\n`));

  return {
    seen,
    next,
    request(id, method, params) {
      send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
      return next((m) => m.id === id && !('method' in m));
    },
    notify(method, params) {
      send({ jsonrpc: '2.0', method, params });
    },
    sendRaw(text) {
      write(encoder.encode(text));
    },
    push(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() === '') continue;
        const message = parseJson(line, 'data') as JsonRpcMessage;
        seen.push(message);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(message)) {
            waiters.delete(waiter);
            waiter.resolve(message);
          }
        }
      }
    },
  };
}
