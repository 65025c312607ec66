/**
 * Browser binding of worker isolation: a {@link SpawnWasmWorker} that starts Web Workers running
 * `mep-wasm-worker.js`. A guest that never yields is killed with `worker.terminate()` at its
 * deadline, and the page's thread stays responsive the whole time. Every transport given the
 * same spawner shares its pool (worker-pool.ts): a closed session's worker is renewed for the next.
 *
 * Needs `SharedArrayBuffer`, so the page must be cross-origin isolated: serve it with
 * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`.
 */
import { LocalErrorCode, MepError } from '../../../host/src/protocol/errors.ts';
import type { SpawnWasmWorker, WasmWorkerHandle } from '../../../host/src/transport/wasm/index.ts';
import type { FromWorker } from '../../../host/src/transport/wasm/worker-protocol.ts';
import { createReplyMailbox, putReply } from './reply-mailbox.ts';
import type { MailboxMessage } from './worker-entry.ts';

/** Options of {@link createWebWorkerSpawner}. */
export interface WebWorkerSpawnerOptions {
  /** URL of the built worker script. Default: `mep-wasm-worker.js` beside this module. */
  url?: string | URL;
  /** Largest answer to a guest request, in bytes. Default 1 MiB. */
  mailboxBytes?: number;
}

/**
 * A {@link SpawnWasmWorker} for browsers. Throws MepError(ERR_USAGE) at once when the page is not
 * cross-origin isolated (no SharedArrayBuffer).
 *
 * @example
 * const transport = await createWasmTransport({ name, module, isolation: 'worker', spawnWorker: createWebWorkerSpawner() });
 * try { … } finally { await transport.close(); }
 */
export function createWebWorkerSpawner(options: WebWorkerSpawnerOptions = {}): SpawnWasmWorker {
  const url = options.url ?? new URL('./mep-wasm-worker.js', import.meta.url);
  return async (): Promise<WasmWorkerHandle> => {
    if (typeof SharedArrayBuffer === 'undefined' || (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) {
      throw new MepError(
        LocalErrorCode.Usage,
        'Worker isolation needs SharedArrayBuffer, which this page does not have: serve it with the headers "Cross-Origin-Opener-Policy: same-origin" and "Cross-Origin-Embedder-Policy: require-corp", or use isolation "inline" for a trusted guest.',
      );
    }
    const worker = new Worker(url, { type: 'module', name: 'mep-wasm-guest' });
    const mailbox = createReplyMailbox(options.mailboxBytes);
    let requests = 0;
    let exitListener: ((error: Error | undefined) => void) | undefined;
    let stopping = false;
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      if (stopping) return;
      stopping = true;
      exitListener?.(new Error(event.message || 'the worker script failed'));
    });
    worker.postMessage({ type: 'mailbox', mailbox } satisfies MailboxMessage);
    return {
      postMessage(message, transfer) {
        if (message.type !== 'reply') {
          worker.postMessage(message, transfer ?? []);
          return;
        }
        const bytes = new Uint8Array(message.bytes);
        if (!putReply(mailbox, requests, bytes)) putReply(mailbox, requests, tooLarge(bytes, mailbox.byteLength));
      },
      onMessage(listener) {
        worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
          if (event.data.type === 'request') requests += 1;
          listener(event.data);
        });
      },
      onExit: (listener) => void (exitListener = listener),
      async terminate() {
        stopping = true;
        worker.terminate();
      },
    };
  };
}

/** The error response sent to the guest instead of an answer that does not fit the mailbox. */
function tooLarge(answer: Uint8Array, capacity: number): Uint8Array {
  let id: unknown = null;
  try {
    id = (JSON.parse(new TextDecoder().decode(answer)) as { id?: unknown }).id ?? null;
  } catch {
    // Not JSON: the guest gets an error response without an id, which it treats as a failure.
  }
  const error = { code: -32603, message: `The host's answer (${answer.length} bytes) exceeds the browser reply mailbox (${capacity} bytes); raise mailboxBytes.` };
  return new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id, error }));
}
