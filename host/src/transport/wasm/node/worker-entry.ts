/**
 * Worker-thread entry of Node worker isolation: serves one wasm guest engine to the transport
 * that spawned this thread (see `serveWasmWorker`). Bundled on first use by node/worker.ts.
 */
import { receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { createExtismEngine } from '../index.ts';
import { serveWasmWorker, type ToWorker } from '../worker-protocol.ts';
import { compileFile, isCompileFileMessage } from './file-module.ts';

// The host's port for this thread (node/worker.ts), not parentPort.
const port = (workerData as { port?: MessagePort } | null)?.port;
if (port === undefined) throw new Error('the wasm worker entry must run in a worker thread spawned by createNodeWasmWorkerSpawner');

// A module prepared from its file for the host (file-module.ts), beside the engine's messages.
port.on('message', (message: unknown) => void (isCompileFileMessage(message) && compileFile(message)));

serveWasmWorker(
  {
    postMessage: (message, transfer) => port.postMessage(message, transfer as never),
    onMessage: (listener) => port.on('message', listener),
    receiveSync: () => receiveMessageOnPort(port)?.message as ToWorker | undefined,
  },
  createExtismEngine,
);
