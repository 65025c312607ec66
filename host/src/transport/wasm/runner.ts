/**
 * A guest runner: one guest instance behind a wasm transport, either on the calling thread
 * (inline) or in a worker. The transport serializes calls; a runner runs one at a time.
 */
import type { MepError } from '../../protocol/errors.ts';
import { Interrupt, RELEASE_MIN_BYTES, type LogLevel, type RunOutcome, type WasmEngine, type WasmEngineOptions } from './engine.ts';

/** What a runner reports to its transport. */
export interface RunnerCallbacks {
  /** A notification from the guest during a call; throws (the transport failed) past the call's budget. */
  onNotify(bytes: Uint8Array): void;
  /**
   * A streamed artifact through `mep_artifact` (its envelope's `envelopeBytes` bytes, then its
   * content's); throws as `onNotify` does.
   */
  onArtifact(bytes: Uint8Array, envelopeBytes: number): void;
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
   * The transport settled the last call and has no other queued: the runner may use the idle
   * time (inline: the guest releases a big call's message on a later turn of the event loop,
   * unless a call comes first). Optional: a worker releases on its own thread.
   */
  idle?(): void;
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
    bridge: { notify: callbacks.onNotify, artifact: callbacks.onArtifact, request: (bytes) => callbacks.onRequest(bytes), log: callbacks.onLog },
  });
  // A big call's message is freed by the guest once the thread is idle after the answer (a
  // whole IR, object by object), not at the start of the next call, where it delayed that call's
  // answer. A call that comes first cancels it: the guest frees the message itself then, as before.
  /** Whether the last call succeeded with an input of RELEASE_MIN_BYTES or more (and was not released). */
  let releasable = false;
  /** The release waiting for a turn of the event loop, and the one under way. */
  let waiting: ReturnType<typeof setTimeout> | undefined;
  let releasing: Promise<void> | undefined;
  const unschedule = (): void => {
    if (waiting === undefined) return;
    clearTimeout(waiting);
    waiting = undefined;
  };
  const release = (): void => {
    waiting = undefined;
    releasing = engine.release().finally(() => void (releasing = undefined));
  };
  const call = (input: Uint8Array, timeoutMs: number): Promise<RunOutcome> => {
    flag[0] = Interrupt.None;
    if (input.length < RELEASE_MIN_BYTES) return engine.call(input, timeoutMs);
    return engine.call(input, timeoutMs).then((outcome) => {
      releasable = outcome.ok;
      return outcome;
    });
  };
  return {
    canWaitForReply: false,
    run(input, timeoutMs) {
      unschedule();
      releasable = false;
      return releasing === undefined ? call(input, timeoutMs) : releasing.then(() => call(input, timeoutMs));
    },
    idle() {
      if (!releasable || waiting !== undefined) return;
      releasable = false;
      waiting = setTimeout(release, 0);
    },
    interrupt(reason) {
      flag[0] = reason;
    },
    reply() {
      // Inline guests never wait: a late response is handed to `handle` as a message instead.
    },
    holdBack: () => false,
    async close() {
      unschedule();
      await releasing;
      await engine.close();
    },
  };
}
