/** Test support: a served host and one client connected to it in this process. */
import { createByteChannelPair } from '../byte-channel.ts';
import { createHostServer, type HostServer } from '../host-server.ts';
import { createNodeOpener } from '../node-open.ts';
import { createLineClient, type LineClient } from './line-client.ts';

/** A server and one in-process client; `end()` disconnects and waits until everything stopped. */
export function connectServed(): { server: HostServer; client: LineClient; end(): Promise<void> } {
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000 });
  const [serverSide, clientSide] = createByteChannelPair();
  const connection = server.connect(serverSide);
  const client = createLineClient((bytes) => clientSide.write(bytes));
  clientSide.onData((chunk) => client.push(chunk));
  return {
    server,
    client,
    async end() {
      clientSide.close();
      await connection.closed;
      await server.close();
    },
  };
}
