/**
 * One MEP JSON-RPC message posted over HTTP, answered on a pooled session: the platform-neutral
 * heart of the HTTP binding (Node's `http-node.ts` and the edge worker both call it).
 *
 * The wire is the reference host's `HttpChannel`: one request per POST, the MEP message itself
 * (no envelope, no session id), its id echoed exactly (0 and strings too), JSON-RPC errors
 * answered with HTTP 200. `morphir.initialize` answers with the handshake of the session the
 * server holds; `morphir.shutdown` ends the client's use (the pooled extension stays up for the
 * next client); notifications (`morphir.initialized`, `morphir.exit`, `$/cancelRequest`) are
 * accepted with 202 and change nothing: a call is cancelled by closing its HTTP request.
 */
import { preserialize } from '../framing/json-sliced-stringify.ts';
import { ErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { GenerateParams, InitializeParams, Method, decodeParams } from '../protocol/index.ts';
import { parseJsonMessage } from '../protocol/json-sliced.ts';
import type { JsonRpcId } from '../rpc/index.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { CALLABLE_METHODS, ServeMethod, type CallableMethod } from './methods.ts';
import type { SessionPool } from './http-pool.ts';
import type { OffThreadBody } from './body-off-thread.ts';
import { toWireError } from './wire-error.ts';
import { refuseDeepRequest } from './deep-request.ts';

/** What the binding sends back: an HTTP status and, unless 202, one JSON-RPC response. */
export interface HttpRpcReply {
  status: 200 | 202 | 400;
  message?: JsonRpcMessage;
}

/** How one posted message is answered. */
export interface HttpRpcOptions {
  /** Aborted when the client goes away (closes the stream or the connection): the call is cancelled. */
  signal: AbortSignal;
  /**
   * Streaming mode (`Accept: text/event-stream`): receives the call's MEP notifications
   * (`morphir.progress`, `morphir.log`, `morphir.backend.artifact`) before the response.
   */
  emit?: (notification: JsonRpcMessage) => void;
  /** Deadline of the call in ms, when the server sets one for HTTP calls. */
  timeoutMs?: number;
  /** The server's log: an internal failure's details go there (the client is told only that it happened). */
  log?: (line: string) => void;
  /** Who asks (the binding's remote address, http-node.ts `clientOfAddress`): the pool's share per client is counted by it. */
  client?: string;
  /** With `emit`: whether the client holds its events unread past its bound, and when it took them; a process extension's stderr is read at that pace. */
  pace?: { busy(): boolean; onDrain(listener: () => void): void };
}

/** A string, or an integer a JSON number holds exactly (past 2^53 the id echoed would be another). */
const isId = (value: unknown): value is JsonRpcId => typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
const CALLABLE = new Set<string>(CALLABLE_METHODS);

/**
 * The JSON-RPC error response for `id`. A failure that is no MepError is -32603 without its
 * internals; its details (message and stack) go to `log`, the server's, when given.
 */
export function errorReply(id: JsonRpcId | null, error: unknown, status: HttpRpcReply['status'] = 200, log?: (line: string) => void): HttpRpcReply {
  const wire = toWireError(error);
  if (isMepError(wire)) return { status, message: { jsonrpc: '2.0', id, error: wire.toJSON() } };
  log?.(`HTTP call ${JSON.stringify(id)} failed inside the server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const message = log ? 'Internal error while serving the call; the server log has the details.' : 'Internal error while serving the call.';
  return { status, message: { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message } } };
}

/**
 * Answer the JSON-RPC message in `body` (its text, or what body-off-thread.ts read of it) for the extension `extension` with a session of `pool`.
 * Never throws: every failure is a JSON-RPC error (HTTP 200; 400 for a body that is not JSON).
 */
export async function answerHttpRpc(pool: SessionPool, extension: string, body: string | OffThreadBody, options: HttpRpcOptions): Promise<HttpRpcReply> {
  /** {@link errorReply} with the server's log. */
  const refuse = (id: JsonRpcId | null, error: unknown, status?: HttpRpcReply['status']): HttpRpcReply => errorReply(id, error, status, options.log);
  let message: unknown;
  const notJson = (reason: string): HttpRpcReply => refuse(null, new MepError(ErrorCode.ParseError, `The request body is not JSON the host reads (${reason}); send one JSON-RPC 2.0 request object per POST.`), 400);
  if (typeof body !== 'string') {
    // Read on a thread of its own (body-off-thread.ts): its large params members are JsonText.
    if ('parse' in body) return notJson(body.parse);
    if ('deep' in body) return refuse(body.deep.id, body.deep.error);
    message = body.message;
  } else {
    const deep = refuseDeepRequest(body, 'request body');
    if (deep) return refuse(deep.id, deep.error);
    try {
      // In slices: a body of millions of values (11 MB of `[{},{},…]` was 2.8 s in one JSON.parse)
      // must not hold the event loop that answers every other client, /health included.
      message = await parseJsonMessage(body, { signal: options.signal });
    } catch (error) {
      if (options.signal.aborted) return refuse(null, new MepError(ErrorCode.RequestCancelled, `The client closed the request while its body was being read; nothing was sent to ${extension}.`));
      return notJson((error as Error).message);
    }
  }
  const read = typeof body === 'string' ? { decoded: false } : body;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return refuse(null, new MepError(ErrorCode.InvalidRequest, 'The request body must be one JSON-RPC 2.0 request object (batches are not served): send one request per POST.'));
  }
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  const hasId = 'id' in message;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || (hasId && !isId(id))) {
    return refuse(hasId && isId(id) ? id : null, new MepError(ErrorCode.InvalidRequest, 'Not a JSON-RPC 2.0 request: it needs "jsonrpc": "2.0", a string "method" and a string "id" or an integer one within ±(2^53 - 1).'));
  }
  // MEP notifications change nothing here: the server's own session already ran its lifecycle.
  if (!hasId) return { status: 202 };
  const requestId = id as JsonRpcId;
  const ok = (result: unknown): HttpRpcReply => ({ status: 200, message: { jsonrpc: '2.0', id: requestId, result: result ?? null } });

  if (method === Method.Shutdown) return ok(null);
  if (method !== Method.Initialize && !CALLABLE.has(method)) {
    return refuse(requestId, new MepError(ErrorCode.MethodNotFound, `${extension} is served over HTTP with morphir.initialize, morphir.shutdown and ${CALLABLE_METHODS.join(', ')}; '${method}' is none of them.`, { data: { method } }));
  }
  if ('paramsError' in read && read.paramsError) return refuse(requestId, read.paramsError);
  let initializeParams: InitializeParams | undefined;
  try {
    if (method === Method.Initialize) initializeParams = decodeParams(InitializeParams, params, Method.Initialize);
  } catch (error) {
    return refuse(requestId, error);
  }

  let lent;
  try {
    lent = await pool.acquire(extension, Object.assign(forward(requestId, options.emit), options.emit ? options.pace : undefined), options.signal, options.client);
  } catch (error) {
    return refuse(requestId, error);
  }
  try {
    if (initializeParams) {
      const version = lent.initialize.protocolVersion;
      if (!initializeParams.protocolVersions.includes(version)) {
        throw new MepError(ErrorCode.ProtocolVersionMismatch, `${extension} speaks MEP ${version}; the client offered ${JSON.stringify(initializeParams.protocolVersions)}.`, { data: { hostVersions: initializeParams.protocolVersions, extensionVersions: [version] } });
      }
      return ok(lent.initialize);
    }
    const call = { clientId: requestId, signal: options.signal, decoded: read.decoded, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
    const emit = options.emit;
    if (emit && method === Method.BackendGenerate) {
      // Streaming: artifacts the backend streams go out as they come, not collected into the result.
      const result = await lent.served.run(
        async (session, callOptions) =>
          session.generate(read.decoded ? (params as GenerateParams) : await preserialize(decodeParams(GenerateParams, params, Method.BackendGenerate), options.signal), {
            ...callOptions,
            onArtifact: (artifact) => emit({ jsonrpc: '2.0', method: Method.BackendArtifact, params: { requestId, artifact } }),
          }),
        call,
      );
      return ok(result);
    }
    return ok(await lent.served.call(method as CallableMethod, params, call));
  } catch (error) {
    // A client's own cancellation is -32800 whatever the session made of it.
    if (options.signal.aborted) return refuse(requestId, new MepError(ErrorCode.RequestCancelled, `The client closed the request; ${method} of ${extension} was cancelled.`));
    return refuse(requestId, error);
  } finally {
    lent.release();
  }
}

/** Turns the served session's notifications into the MEP notifications of the call `requestId`. */
function forward(requestId: JsonRpcId, emit: HttpRpcOptions['emit']): (method: string, params: Record<string, unknown>) => void {
  if (!emit) return () => undefined;
  return (method, params) => {
    const { sessionId: _sessionId, ...rest } = params;
    if (method === ServeMethod.Progress) emit({ jsonrpc: '2.0', method: Method.Progress, params: { ...rest, requestId } });
    else if (method === ServeMethod.Log) emit({ jsonrpc: '2.0', method: Method.Log, params: rest });
  };
}
