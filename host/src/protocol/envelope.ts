/**
 * JSON-RPC 2.0 envelopes as MEP 0.1 uses them: ids, requests, notifications, responses and the
 * error object. The rpc peer owns dispatch; these schemas only describe the shapes, for fixtures,
 * conformance checks and the guest dispatcher.
 *
 * MEP 0.1, Protocol and transport: request ids are strings or integers, returned unchanged.
 */
import * as z from 'zod';

/** A JSON-RPC request id the host may send: a string or a safe integer (never a fraction). */
export const RequestId = z.union([z.string(), z.int()]);
/** A JSON-RPC request id: a string or a safe integer. */
export type RequestId = z.infer<typeof RequestId>;

/**
 * A response id: a {@link RequestId}, or `null` when the request could not be read far enough to
 * learn its id (parse error, invalid request).
 */
export const ResponseId = z.union([RequestId, z.null()]);
/** A response id: a request id or null. */
export type ResponseId = z.infer<typeof ResponseId>;

/** The JSON-RPC `error` object of a failed response. */
export const ResponseError = z.looseObject({
  code: z.int(),
  message: z.string(),
  data: z.unknown().optional(),
});
/** The JSON-RPC `error` object of a failed response. */
export type ResponseError = z.infer<typeof ResponseError>;

/**
 * `params` of a request or notification: JSON-RPC allows an object or an array, or no member.
 * An explicit `null` passes the envelope so that the method's own schema refuses it with -32602,
 * as the reference extensions (morphir-elm, morphir-scala) do.
 */
const Params = z.union([z.looseObject({}), z.array(z.unknown()), z.null()]).optional();

/** A JSON-RPC request: carries an id and expects exactly one response. */
export const JsonRpcRequest = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: RequestId,
  method: z.string().min(1),
  params: Params,
});
/** A JSON-RPC request. */
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

/** A JSON-RPC notification: no id member, never answered. */
export const JsonRpcNotification = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    method: z.string().min(1),
    params: Params,
  })
  .refine((m) => !('id' in m), { message: 'a notification has no id member', path: ['id'] });
/** A JSON-RPC notification. */
export type JsonRpcNotification = z.infer<typeof JsonRpcNotification>;

/** A successful JSON-RPC response: `result` present, `error` absent. */
export const JsonRpcSuccess = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: ResponseId,
    result: z.unknown(),
  })
  .refine((m) => 'result' in m && !('error' in m), { message: 'a success response has result and no error' });
/** A successful JSON-RPC response. */
export type JsonRpcSuccess = z.infer<typeof JsonRpcSuccess>;

/** A failed JSON-RPC response: `error` present, `result` absent. */
export const JsonRpcFailure = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: ResponseId,
    error: ResponseError,
  })
  .refine((m) => !('result' in m), { message: 'a failed response has no result' });
/** A failed JSON-RPC response. */
export type JsonRpcFailure = z.infer<typeof JsonRpcFailure>;

/** `error.data` of -32011 (MEP 0.1, Errors): the versions each side offered. */
export const ProtocolVersionMismatchData = z.looseObject({
  hostVersions: z.array(z.string()),
  extensionVersions: z.array(z.string()),
});
/** `error.data` of -32011. */
export type ProtocolVersionMismatchData = z.infer<typeof ProtocolVersionMismatchData>;
