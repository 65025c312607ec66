/**
 * Worker-thread entry of Node worker isolation: serves one wasm guest engine to the transport
 * that spawned this thread (see `serveWasmWorker`). Bundled on first use by node/worker.ts.
 */
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { createExtismEngine } from '../index.ts';
import { serveWasmWorker, type ToWorker } from '../worker-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('the wasm worker entry must run in a worker thread');

serveWasmWorker(
  {
    postMessage: (message, transfer) => port.postMessage(message, transfer as never),
    onMessage: (listener) => port.on('message', listener),
    receiveSync: () => receiveMessageOnPort(port)?.message as ToWorker | undefined,
  },
  createExtismEngine,
);
