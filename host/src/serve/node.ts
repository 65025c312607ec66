/**
 * The served host's Node binding: explicit barrel of stdio and Unix-socket serving and of the
 * Node way to open extensions. The protocol engine is `./index.ts`.
 */
export { channelFromSocket, channelFromStreams } from './node-channel.ts';
export { createNodeOpener } from './node-open.ts';
export { createNodeProjectCompiler } from './node-project.ts';
export type { NodeOpenerOptions } from './node-open.ts';
export { listenUnixSocket } from './unix-socket.ts';
export type { UnixSocketListener } from './unix-socket.ts';
export { serveStdio } from './serve-stdio.ts';
export { listenHttp } from './http-node.ts';
export type { HttpListener, HttpListenOptions } from './http-node.ts';
