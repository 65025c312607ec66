/**
 * Serving a host to the parent process over stdin/stdout (`mep serve`): stdout carries protocol
 * lines only; the served host ends when stdin ends or a client sends `server/shutdown`.
 */
import type { Readable, Writable } from 'node:stream';
import type { HostServer } from './host-server.ts';
import { channelFromStreams } from './node-channel.ts';

/**
 * Serve `server` over `input`/`output` (default: the process's stdin and stdout). Resolves when
 * the client is gone and all its sessions are closed.
 *
 * @example
 * const server = createHostServer({ open: createNodeOpener() });
 * try { await serveStdio(server); } finally { await server.close(); }
 */
export async function serveStdio(server: HostServer, streams: { input?: Readable; output?: Writable } = {}): Promise<void> {
  const connection = server.connect(channelFromStreams(streams.input ?? process.stdin, streams.output ?? process.stdout, 'stdio'));
  await Promise.race([connection.closed, new Promise<void>((resolve) => server.onClose(resolve))]);
  await server.close();
}
