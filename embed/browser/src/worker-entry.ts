/**
 * Web Worker entry of browser worker isolation: serves one wasm guest engine to the page's
 * transport (see `serveWasmWorker`). Built to `mep-wasm-worker.js` by embed/browser/build.ts.
 * The first message carries the reply mailbox ({@link createReplyMailbox}).
 */
import { createExtismEngine } from '../../../host/src/transport/wasm/index.ts';
import { serveWasmWorker, type FromWorker, type ToWorker } from '../../../host/src/transport/wasm/worker-protocol.ts';
import { takeReply } from './reply-mailbox.ts';

/** The first message a browser worker receives, before `init`. */
export interface MailboxMessage {
  type: 'mailbox';
  mailbox: SharedArrayBuffer;
}

interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

const scope = globalThis as unknown as WorkerScope;
let mailbox: SharedArrayBuffer | undefined;
let requests = 0;
let listener: ((message: ToWorker) => void) | undefined;

scope.addEventListener('message', (event) => {
  const message = event.data as ToWorker | MailboxMessage;
  if (message.type === 'mailbox') mailbox = message.mailbox;
  else listener?.(message);
});

serveWasmWorker(
  {
    postMessage(message: FromWorker, transfer?: Transferable[]) {
      if (message.type === 'request') requests += 1;
      scope.postMessage(message, transfer ?? []);
    },
    onMessage: (l) => void (listener = l),
    receiveSync(): ToWorker | undefined {
      const bytes = mailbox === undefined ? undefined : takeReply(mailbox, requests);
      return bytes === undefined ? undefined : { type: 'reply', bytes: bytes.buffer as ArrayBuffer };
    },
  },
  createExtismEngine,
);
