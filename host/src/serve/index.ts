/**
 * The served host (`mep serve`), platform-neutral part: explicit barrel of the protocol engine
 * (`createHostServer`, channels, methods). No `node:` import; the Node binding is `./node.ts`.
 */
export { createHostServer } from './host-server.ts';
export type { CompileProjectFolder, HostServer, HostServerOptions, OpenedExtension, OpenExtension, ServerConnection } from './host-server.ts';
export { createByteChannelPair } from './byte-channel.ts';
export type { ByteChannel, MemoryByteChannel } from './byte-channel.ts';
export { createLineTransport, DEFAULT_SERVE_MAX_LINE_BYTES } from './line-transport.ts';
export type { LineTransportOptions } from './line-transport.ts';
export { CALLABLE_METHODS, CallParams, OpenParams, ProjectCompileParams, SERVE_PROTOCOL, ServeMethod, SessionParams } from './methods.ts';
export type { CallableMethod, ProjectCompileReply, ServerInfo } from './methods.ts';
export { toWireError } from './wire-error.ts';
export { answerHttpRpc, errorReply } from './http-rpc.ts';
export type { HttpRpcOptions, HttpRpcReply } from './http-rpc.ts';
export { createSessionPool } from './http-pool.ts';
export type { PooledSession, SessionPool, SessionPoolOptions } from './http-pool.ts';
export { checkContentType, checkOrigin, checkToken, isLoopback } from './http-guard.ts';
export type { HttpGuardOptions, HttpRefusal } from './http-guard.ts';
export { HTTP_LIMITS, HTTP_PROTOCOL, httpInfo, routeIdOf, routeOf } from './http-routes.ts';
export type { HttpRoutes } from './http-routes.ts';
