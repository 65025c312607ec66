/**
 * What a command can start before it knows its extension. Light on purpose (no engine, no Extism
 * SDK, no schemas): it is loaded before the rest of the command.
 */
import { prestartNodeWasmWorker } from '../transport/wasm/node/spawner.ts';

/**
 * Starts a worker thread for a wasm extension whose session is about to open, so its engine is
 * instantiated on a running thread as soon as the module is known. Never fails; an unused thread
 * does not keep the process alive and stops when idle.
 */
export function prestartWasmWorker(): Promise<void> {
  return prestartNodeWasmWorker();
}
