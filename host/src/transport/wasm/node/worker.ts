/**
 * Node binding of worker isolation for wasm transports: {@link createNodeWasmTransport}, the Node
 * default (isolation `worker`, on the shared pool of spawner.ts).
 */
import { createWasmTransport, openWasmExport, warmWasmTransport, type WasmExportCaller, type WasmTransport, type WasmTransportOptions } from '../index.ts';
import type { WarmOptions } from '../worker-pool.ts';
import { sharedNodeWasmSpawner } from './spawner.ts';

export { createNodeWasmWorkerSpawner, prestartNodeWasmWorker, type NodeWorkerSpawnerOptions } from './spawner.ts';

/**
 * {@link createWasmTransport} with Node's default: worker isolation with a Node spawner.
 *
 * @example
 * const transport = await createNodeWasmTransport({ name: 'avro', module: bytes });
 * try { … } finally { await transport.close(); }
 */
export function createNodeWasmTransport(options: NodeWasmTransportOptions): Promise<WasmTransport> {
  return createWasmTransport(withNodeDefaults(options));
}

/** {@link openWasmExport} with Node's default: worker isolation with a Node spawner. */
export function openNodeWasmExport(options: NodeWasmTransportOptions & { entry: string }): Promise<WasmExportCaller> {
  return openWasmExport({ ...withNodeDefaults(options), entry: options.entry });
}

/** {@link warmWasmTransport} for a later {@link createNodeWasmTransport} with the same options. */
export function warmNodeWasmTransport(options: NodeWasmTransportOptions, warm?: WarmOptions): Promise<void> {
  return warmWasmTransport(withNodeDefaults(options), warm);
}

/** Options of {@link createNodeWasmTransport}: isolation defaults to `worker`, with the shared spawner. */
export type NodeWasmTransportOptions = Omit<WasmTransportOptions, 'isolation' | 'spawnWorker'> & { isolation?: WasmTransportOptions['isolation'] };

const withNodeDefaults = (options: NodeWasmTransportOptions): WasmTransportOptions => ({
  ...options,
  isolation: options.isolation ?? 'worker',
  spawnWorker: sharedNodeWasmSpawner(),
});
