/**
 * JSON-RPC 2.0 envelopes: validation of what arrives and construction of what leaves. The
 * envelope is checked here once; method names and params are opaque to this layer.
 */
import * as z from 'zod';
import { JsonRpcFailure, JsonRpcNotification, JsonRpcRequest, JsonRpcSuccess } from '../protocol/envelope.ts';
import type { JsonRpcMessage } from '../transport/types.ts';

/** A JSON-RPC request id. MEP 0.1: "identifiers may be strings or integers". */
export type JsonRpcId = string | number;

/** The `error` member of a JSON-RPC error response. */
export type JsonRpcErrorObject = { code: number; message: string; data?: unknown };

/** One classified incoming message. `invalid` carries the id when one could be recovered. */
export type IncomingMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'result'; id: JsonRpcId; result: unknown }
  | { kind: 'error'; id: JsonRpcId | null; error: JsonRpcErrorObject }
  | { kind: 'invalid'; id: JsonRpcId | null; looksLike: 'request' | 'response' | 'unknown'; reason: string; issues?: unknown };

function recoverId(message: JsonRpcMessage): JsonRpcId | null {
  const id = message.id;
  // RequestId's own test (a string or a safe integer), without a schema parse per message.
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as JsonRpcId) : null;
}

/** The `invalid` classification of a message whose id (when recoverable) is `id`. */
function invalid(id: JsonRpcId | null, looksLike: 'request' | 'response' | 'unknown', reason: string, issues?: unknown): IncomingMessage {
  return { kind: 'invalid', id, looksLike, reason, ...(issues === undefined ? {} : { issues }) };
}

/**
 * Classify and validate one decoded message: jsonrpc "2.0"; id a string or an integer; a
 * request has a string method; a response has exactly one of result and error.
 */
export function parseMessage(message: JsonRpcMessage): IncomingMessage {
  const hasMethod = 'method' in message;
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  const id = recoverId(message);
  // The common answer, a result to a request, is the envelope JsonRpcSuccess accepts with a
  // non-null id: checked here at once (a zod parse per answer was a tenth of a ping's host time).
  if (hasResult && !hasError && !hasMethod && id !== null && message.jsonrpc === '2.0') return { kind: 'result', id, result: message.result };

  if (hasMethod) {
    if (hasResult || hasError) return invalid(id, 'request', 'a message carries both a method and a result or error');
    if ('id' in message) {
      const parsed = JsonRpcRequest.safeParse(message);
      if (!parsed.success) return invalid(id, 'request', 'invalid request envelope', z.treeifyError(parsed.error));
      return { kind: 'request', id: parsed.data.id, method: parsed.data.method, params: message.params };
    }
    const parsed = JsonRpcNotification.safeParse(message);
    if (!parsed.success) return invalid(id, 'unknown', 'invalid notification envelope', z.treeifyError(parsed.error));
    return { kind: 'notification', method: parsed.data.method, params: message.params };
  }
  if (hasResult && hasError) return invalid(id, 'response', 'a response carries both result and error');
  if (hasResult) {
    const parsed = JsonRpcSuccess.safeParse(message);
    if (!parsed.success) return invalid(id, 'response', 'invalid response envelope', z.treeifyError(parsed.error));
    // A result can only answer a request, and every request had a string or integer id.
    if (parsed.data.id === null) return invalid(id, 'response', 'a result response has a null id');
    return { kind: 'result', id: parsed.data.id, result: message.result };
  }
  if (hasError) {
    const parsed = JsonRpcFailure.safeParse(message);
    if (!parsed.success) return invalid(id, 'response', 'invalid error response envelope', z.treeifyError(parsed.error));
    return { kind: 'error', id: parsed.data.id, error: parsed.data.error as JsonRpcErrorObject };
  }
  return invalid(id, 'unknown', 'a message has neither a method nor a result or error');
}

/** Build a request envelope; `params` is omitted when undefined. */
export function requestMessage(id: JsonRpcId, method: string, params?: unknown): JsonRpcMessage {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** Build a notification envelope; `params` is omitted when undefined. */
export function notificationMessage(method: string, params?: unknown): JsonRpcMessage {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** Build a success response; an undefined result is sent as null, since `result` is required. */
export function resultMessage(id: JsonRpcId | null, result: unknown): JsonRpcMessage {
  return { jsonrpc: '2.0', id, result: result === undefined ? null : result };
}

/** Build an error response. */
export function errorMessage(id: JsonRpcId | null, error: JsonRpcErrorObject): JsonRpcMessage {
  return { jsonrpc: '2.0', id, error };
}
