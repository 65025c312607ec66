/**
 * A guest runner: one guest instance behind a wasm transport, either on the calling thread
 * (inline) or in a worker. The transport serializes calls; a runner runs one at a time.
 */
import type { MepError } from '../../protocol/errors.ts';
import { Interrupt, type LogLevel, type RunOutcome, type WasmEngine, type WasmEngineOptions } from './engine.ts';

/** What a runner reports to its transport. */
export interface RunnerCallbacks {
  /** A notification from the guest during a call; throws (the transport failed) past the call's budget. */
  onNotify(bytes: Uint8Array): void;
  /** A request from the guest: the response's bytes when one was sent synchronously, else null. */
  onRequest(bytes: Uint8Array): Uint8Array | null;
  /**
   * The same for a large message of a worker's guest, parsed in slices (the event loop turns);
   * the runner delivers nothing more of the call before it settles. Optional: `onNotify` else.
   */
  onNotifySliced?(bytes: Uint8Array): Promise<void>;
  /** The same for a large request: the response's bytes when one was sent at once, else null. */
  onRequestSliced?(bytes: Uint8Array): Promise<Uint8Array | null>;
  /** A log line from the guest. */
  onLog(level: LogLevel, message: string): void;
  /** The runner died outside of a call (a worker exited). */
  onDead(error: MepError): void;
}

/** One guest instance, inline or isolated. */
export interface GuestRunner {
  /** True when a guest request may be answered after `onRequest` returned null (worker). */
  readonly canWaitForReply: boolean;
  /** Runs `handle` once; `input` must own its buffer and may be transferred. Never rejects. */
  run(input: Uint8Array, timeoutMs: number): Promise<RunOutcome>;
  /** Sets the interrupt flag the running call polls ({@link Interrupt}). */
  interrupt(reason: number): void;
  /** Delivers the response to the guest request that is waiting (worker only). */
  reply(bytes: Uint8Array): void;
  /**
   * Holds the guest back while `held` (the host's receiver is behind): a worker's guest then
   * waits in its next notify or log call (still ending at its deadline). False when the runner
   * cannot: an inline guest runs on the host's own thread, which nothing can block for it.
   */
  holdBack(held: boolean): boolean;
  /** Stops the guest; resolves when nothing of it runs any more. */
  close(): Promise<void>;
}

/** Creates an engine for a runner; `wasm.ts` binds it to Extism. */
export type EngineFactory = (module: WebAssembly.Module, options: WasmEngineOptions) => Promise<WasmEngine>;

/**
 * A runner on the calling thread: fastest, works in browsers and edge runtimes, but a guest that
 * never polls `mep_interrupt` blocks the thread for good. Use it only for trusted guests.
 */
export async function createInlineRunner(
  createEngine: EngineFactory,
  module: WebAssembly.Module,
  options: Omit<WasmEngineOptions, 'interruptFlag' | 'bridge'>,
  callbacks: RunnerCallbacks,
): Promise<GuestRunner> {
  const flag = new Int32Array(1);
  const engine = await createEngine(module, {
    ...options,
    interruptFlag: flag,
    bridge: { notify: callbacks.onNotify, request: (bytes) => callbacks.onRequest(bytes), log: callbacks.onLog },
  });
  return {
    canWaitForReply: false,
    run(input, timeoutMs) {
      flag[0] = Interrupt.None;
      return engine.call(input, timeoutMs);
    },
    interrupt(reason) {
      flag[0] = reason;
    },
    reply() {
      // Inline guests never wait: a late response is handed to `handle` as a message instead.
    },
    holdBack: () => false,
    close: () => engine.close(),
  };
}
