/**
 * The messages between a wasm transport and its worker, the shared flag layout, and the
 * worker-side loop ({@link serveWasmWorker}). Platform-neutral: the thread primitives come in
 * through {@link WorkerSidePort}, so a browser or Deno binding can reuse it.
 *
 * Shared flags (an Int32Array over a SharedArrayBuffer): slot 0 is the interrupt flag the guest
 * polls through `mep_interrupt`; slot 1 is a sequence the host bumps (and notifies) whenever the
 * worker should look for a reply or stop waiting.
 */
import { LocalErrorCode, type MepErrorCode } from '../../protocol/errors.ts';
import type { LogLevel, RunOutcome, SerializedError, WasmEngine, WasmEngineOptions } from './engine.ts';
import type { WasmGrants, WasmLimits } from './limits.ts';

/** Slot of the interrupt flag. */
export const FLAG_INTERRUPT = 0;
/** Slot of the wake-up sequence. */
export const FLAG_WAKE = 1;
/** Longest single Atomics.wait of a waiting guest request (ms); guards against lost wake-ups. */
const WAIT_SLICE_MS = 50;

/** Host to worker. */
export type ToWorker =
  | { type: 'init'; module: WebAssembly.Module; name: string; limits: WasmLimits; grants: WasmGrants; flags: SharedArrayBuffer }
  | { type: 'call'; input: ArrayBuffer; timeoutMs: number }
  | { type: 'reply'; bytes: ArrayBuffer };

/** Worker to host. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'init-error'; error: SerializedError }
  | { type: 'notify'; bytes: ArrayBuffer }
  | { type: 'request'; bytes: ArrayBuffer }
  | { type: 'log'; level: LogLevel; message: string }
  | { type: 'result'; outcome: RunOutcome };

/** The worker's end of the channel to the host. */
export interface WorkerSidePort {
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
  onMessage(listener: (message: ToWorker) => void): void;
  /** Takes the next queued message without returning to the event loop, if there is one. */
  receiveSync(): ToWorker | undefined;
}

/** Runs the worker side: one engine, created on `init`, serving `call`s one at a time. */
export function serveWasmWorker(
  port: WorkerSidePort,
  createEngine: (module: WebAssembly.Module, options: WasmEngineOptions) => Promise<WasmEngine>,
): void {
  let engine: WasmEngine | undefined;
  let flags: Int32Array | undefined;

  const request = (bytes: Uint8Array, shouldStop: () => boolean): Uint8Array | null => {
    const wake = flags as Int32Array;
    let seen = Atomics.load(wake, FLAG_WAKE);
    port.postMessage({ type: 'request', bytes: bytes.buffer as ArrayBuffer }, [bytes.buffer as ArrayBuffer]);
    for (;;) {
      const message = port.receiveSync();
      if (message?.type === 'reply') return new Uint8Array(message.bytes);
      if (shouldStop()) return null;
      // The sequence is read before looking at the port, so a reply posted meanwhile ends the wait.
      Atomics.wait(wake, FLAG_WAKE, seen, WAIT_SLICE_MS);
      seen = Atomics.load(wake, FLAG_WAKE);
    }
  };

  port.onMessage(async (message) => {
    if (message.type === 'init') {
      flags = new Int32Array(message.flags);
      try {
        engine = await createEngine(message.module, {
          name: message.name,
          limits: message.limits,
          grants: message.grants,
          interruptFlag: flags,
          bridge: {
            notify: (bytes) => port.postMessage({ type: 'notify', bytes: bytes.buffer as ArrayBuffer }, [bytes.buffer as ArrayBuffer]),
            request,
            log: (level, text) => port.postMessage({ type: 'log', level, message: text }),
          },
        });
        port.postMessage({ type: 'ready' });
      } catch (error) {
        const e = error as { code?: unknown; message?: unknown; data?: unknown };
        port.postMessage({
          type: 'init-error',
          error: { code: typeof e.code === 'string' || typeof e.code === 'number' ? (e.code as MepErrorCode) : LocalErrorCode.ExtensionCrashed, message: String(e.message ?? error), data: e.data },
        });
      }
    } else if (message.type === 'call' && engine !== undefined) {
      const outcome = await engine.call(new Uint8Array(message.input), message.timeoutMs);
      const transfer = outcome.ok && outcome.output !== null ? [outcome.output.buffer as ArrayBuffer] : [];
      port.postMessage({ type: 'result', outcome }, transfer);
    }
    // A 'reply' arriving here came after its request stopped waiting: nobody wants it.
  });
}
