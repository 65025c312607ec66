/**
 * Standard input read on a thread of its own, so that a process extension learns of a
 * `$/cancelRequest` while its handler runs synchronously (MEP 0.1, Cancellation), as a wasm guest
 * does through its interrupt flag. A Worker reads fd 0 and posts each chunk, in order, on a
 * MessagePort, then bumps a counter in a SharedArrayBuffer. The main thread takes chunks from the
 * port's events as usual; while it is busy in a handler, {@link StdinThread.takeArrived} compares
 * the counter (one Atomics load) and, when something arrived, takes the chunks synchronously
 * (`receiveMessageOnPort`). The framing stays on the main thread: one decoder, one set of limits.
 */
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';

/** One thing read from stdin: bytes, its end (null), or a read error's message. */
export type StdinEvent = Uint8Array | null | { error: string };

/** The reader thread of one process. */
export interface StdinThread {
  /** Receives every event not taken by {@link StdinThread.takeArrived}, in order, from the event loop. */
  onEvent(listener: (event: StdinEvent) => void): void;
  /** The events that arrived and were not delivered yet, taken now (cheap when there are none). */
  takeArrived(): StdinEvent[];
}

// Plain JavaScript run with `eval: true` (a CommonJS script): the process build is one file, so
// the reader cannot be a module of its own. A pipe or socket is read through libuv's poll (its
// read can be stopped when the process exits), a file through fs reads.
const READER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { port, counter } = workerData;
const arrived = new Int32Array(counter);
const post = (event, transfer) => {
  port.postMessage(event, transfer);
  Atomics.add(arrived, 0, 1);
};
let input;
try {
  input = fs.fstatSync(0).isFile()
    ? fs.createReadStream('', { fd: 0, autoClose: false, highWaterMark: 1 << 20 })
    : new (require('node:net').Socket)({ fd: 0, readable: true, writable: false });
} catch (error) {
  post({ error: 'cannot read standard input: ' + (error && error.message) });
}
if (input) {
  input.on('data', (chunk) => {
    const copy = new Uint8Array(chunk);
    post(copy, [copy.buffer]);
  });
  input.on('end', () => post(null));
  input.on('error', (error) => post({ error: 'reading standard input failed: ' + (error && error.message) }));
}
`;

/**
 * Starts the reader thread. Call it once, early (the thread starts while the extension's own
 * modules load); events wait in the port until a listener is set.
 */
export function startStdinThread(): StdinThread {
  const counter = new SharedArrayBuffer(4);
  const arrived = new Int32Array(counter);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(READER, { eval: true, workerData: { port: port2, counter }, transferList: [port2], stdout: false, stderr: false });
  // The process ends on morphir.exit or the end of input, never because the reader still runs.
  worker.unref();
  let seen = 0;
  return {
    onEvent(listener) {
      port1.on('message', (event: StdinEvent) => listener(event));
      worker.on('error', (error) => listener({ error: `the standard input reader failed: ${error.message}` }));
    },
    takeArrived() {
      const now = Atomics.load(arrived, 0);
      if (now === seen) return [];
      seen = now;
      const events: StdinEvent[] = [];
      for (let m = receiveMessageOnPort(port1); m !== undefined; m = receiveMessageOnPort(port1)) events.push(m.message as StdinEvent);
      return events;
    },
  };
}
