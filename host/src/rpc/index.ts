/**
 * The JSON-RPC 2.0 peer: explicit barrel of `rpc/`. Knows no MEP method.
 */
export { createPeer, CANCEL_REQUEST_METHOD, DEFAULT_REQUEST_TIMEOUT_MS } from './peer.ts';
export type { Peer, PeerOptions, RequestOptions } from './peer.ts';
export type { RequestContext, RequestHandler, NotificationHandler } from './dispatcher.ts';
export { parseMessage, requestMessage, notificationMessage, resultMessage, errorMessage } from './message.ts';
export type { IncomingMessage, JsonRpcErrorObject, JsonRpcId } from './message.ts';
