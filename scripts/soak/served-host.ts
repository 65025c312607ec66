/**
 * The host under soak: `mep serve --socket`'s engine (createHostServer + createNodeOpener +
 * listenUnixSocket) in a child process of its own, started by `server-handle.ts` with
 * `--expose-gc`. Its parent asks it over the IPC channel for memory after a forced GC, so the
 * figures are the server's alone (the soak's clients live in the parent).
 *
 * Usage (by fork only): served-host.ts <socket path> [JSON of HostServerOptions limits]
 */
import { setTimeout as delay } from 'node:timers/promises';
import { createHostServer } from '../../host/src/serve/host-server.ts';
import { createNodeOpener, listenUnixSocket } from '../../host/src/serve/node.ts';

/** A request from the parent. */
export type ToServedHost = { type: 'measure'; id: number; gc: boolean };

/** What the server reports after a forced GC. */
export interface ServerSample {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  sessions: number;
  /** Session slots taken (opening, open or closing). */
  slots: number;
  connections: number;
  /** Live handles and requests by kind (timers, pipes, workers, child processes, …). */
  resources: Record<string, number>;
}

/** A message to the parent. */
export type FromServedHost = { type: 'listening'; path: string } | { type: 'sample'; id: number; sample: ServerSample };

const gc = (globalThis as { gc?: () => void }).gc;

async function collect(): Promise<void> {
  if (gc === undefined) throw new Error('served-host.ts needs --expose-gc');
  // Several rounds with turns of the event loop between: finalizers and worker teardown are
  // asynchronous, and what they free is only collectable on the next pass.
  for (let round = 0; round < 4; round++) {
    gc();
    await delay(25);
  }
}

async function main(): Promise<void> {
  const [path, optionsJson] = process.argv.slice(2);
  if (path === undefined || process.send === undefined) throw new Error('served-host.ts is started by server-handle.ts (fork, with a socket path)');
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000, ...(optionsJson ? JSON.parse(optionsJson) : {}) });
  const listener = await listenUnixSocket(server, path);
  process.on('message', (message: ToServedHost) => {
    if (message.type !== 'measure') return;
    void (message.gc ? collect() : Promise.resolve()).then(() => {
      const memory = process.memoryUsage();
      const resources: Record<string, number> = {};
      for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
      const sample: ServerSample = {
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        external: memory.external,
        arrayBuffers: memory.arrayBuffers,
        sessions: server.sessionCount,
        slots: server.slotCount,
        connections: server.connectionCount,
        resources,
      };
      process.send?.({ type: 'sample', id: message.id, sample } satisfies FromServedHost);
    });
  });
  // The parent going away ends the soak: never outlive it.
  process.on('disconnect', () => void listener.close().then(() => process.exit(0)));
  process.send({ type: 'listening', path } satisfies FromServedHost);
  await listener.closed;
  process.disconnect?.();
}

await main();
