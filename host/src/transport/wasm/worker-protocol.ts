/**
 * The messages between a wasm transport and its worker, and the worker-side loop
 * ({@link serveWasmWorker}). Platform-neutral: the thread primitives come in through
 * {@link WorkerSidePort}, so a browser or Deno binding can reuse it.
 *
 * A worker serves one engine at a time. After `init` it answers `ready` and, when the host asked
 * for it (`listen`), listens on the shared channel (worker-channel.ts) for calls; a call that
 * does not fit the channel is posted and taken from the event loop. `Leave` drops the engine
 * (answer `released`) so a pool can prepare the thread for another guest; `Renew` replaces it with
 * a fresh instance of the same guest (answer `ready`) for the next session.
 */
import { LocalErrorCode, type MepErrorCode } from '../../protocol/errors.ts';
import { guestMemoryLine, RELEASE_MIN_BYTES, type LogLevel, type RunOutcome, type SerializedError, type WasmEngine, type WasmEngineOptions } from './engine.ts';
import type { WasmGrants, WasmLimits } from './limits.ts';
import { Interrupt } from './engine.ts';
import { awaitCommand, CMD_SEQ, Command, createFlowWindow, createSpinPolicy, FLAG_INTERRUPT, FLAG_WAKE, fitsChannel, flowSize, writeResult, type Channel, type FlowWindow } from './worker-channel.ts';

export { FLAG_INTERRUPT, FLAG_WAKE } from './worker-channel.ts';

/**
 * How long a listening worker polls for the next command after each one before it sleeps (ms):
 * longer than the host takes to send the next of back-to-back calls (mostly under 10 µs
 * measured), short enough that an idle worker stops using CPU at once.
 */
const WORKER_SPIN_MS = 0.05;

/**
 * How long a worker polls for the next command after an answer that woke the host (ms): the host
 * sends it once its event loop woke up (tens to hundreds of µs), and a worker still polling then
 * answers at once — the host, seeing it awake, polls for that answer, and back-to-back calls are
 * fast again. Where the host takes longer, these polls fail and back off.
 */
const WORKER_PROBE_MS = 0.3;

/** Longest single Atomics.wait of a waiting guest request (ms); guards against lost wake-ups. */
const WAIT_SLICE_MS = 50;

/** The message that prepares a worker's engine; `listen` asks it to serve calls from the channel. */
export interface InitMessage {
  type: 'init';
  module: WebAssembly.Module;
  name: string;
  limits: WasmLimits;
  grants: WasmGrants;
  /** The export calls run (default `handle`). */
  entry?: string;
  flags: SharedArrayBuffer;
  listen: boolean;
}

/** Host to worker. */
export type ToWorker =
  | InitMessage
  | { type: 'call'; input: ArrayBuffer; timeoutMs: number }
  /** `request` numbers the guest request it answers (1 for the thread's first), when known. */
  | { type: 'reply'; bytes: ArrayBuffer; request?: number }
  /** {@link Command.Renew} and {@link Command.Leave} for a worker that does not listen. */
  | { type: 'renew' }
  | { type: 'leave' };

/** Worker to host. */
export type FromWorker =
  /** The engine is being created now (the host's deadline for it starts here, not at the thread's boot). */
  | { type: 'starting' }
  | { type: 'ready' }
  | { type: 'init-error'; error: SerializedError }
  | { type: 'released' }
  | { type: 'notify'; bytes: ArrayBuffer }
  /** A streamed artifact through `mep_artifact`: its envelope's `envelope` bytes, then its content's. */
  | { type: 'artifact'; bytes: ArrayBuffer; envelope: number }
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

/** Runs the worker side: one engine at a time, created on `init`, serving calls one at a time. */
export function serveWasmWorker(
  port: WorkerSidePort,
  createEngine: (module: WebAssembly.Module, options: WasmEngineOptions) => Promise<WasmEngine>,
): void {
  let engine: WasmEngine | undefined;
  let init: InitMessage | undefined;
  let channel: Channel | undefined;
  /** The window of messages posted ahead of what the host handled (one per thread, like the channel). */
  let flow: FlowWindow | undefined;
  let listening = false;
  let handled = 0;
  /** Messages posted during the current call, so the host can deliver them before the result. */
  let posted = 0;
  /** Guest requests posted by this thread, across engines, so a stale reply never answers a later one. */
  let requests = 0;
  const spin = createSpinPolicy({ awakeMs: WORKER_SPIN_MS, asleepMs: WORKER_PROBE_MS });
  /** True while a call from the channel runs: the guest's memory after it can travel with its result. */
  let channelCall = false;
  /** That memory (bytes), held until the result (or the next message, to keep the order); -1 when none. */
  let memoryBytes = -1;

  /** Posts the held memory as its log line, if any, before whatever comes next. */
  const flush = (): void => {
    if (memoryBytes < 0) return;
    const line = guestMemoryLine(memoryBytes);
    memoryBytes = -1;
    flow?.reserve(line.length, stopping);
    posted++;
    port.postMessage({ type: 'log', level: 'debug', message: line });
  };
  /** Past a deadline or at close the host kills the thread: waiting for room would only delay that. */
  const stopping = (): boolean => {
    const flag = Atomics.load(channel as Channel, FLAG_INTERRUPT);
    return flag === Interrupt.Deadline || flag === Interrupt.Close;
  };
  const post = (message: FromWorker, transfer?: Transferable[]): void => {
    flush();
    const size = flowSize(message);
    if (size >= 0) flow?.reserve(size, stopping);
    posted++;
    port.postMessage(message, transfer);
  };
  const log = (level: LogLevel, text: string): void => post({ type: 'log', level, message: text });
  const memory = (bytes: number): void => {
    // The engine reports it after the guest returned: holding it loses nothing if the thread is killed.
    if (channelCall) {
      flush();
      memoryBytes = bytes;
    } else log('debug', guestMemoryLine(bytes));
  };

  const request = (bytes: Uint8Array, shouldStop: () => boolean): Uint8Array | null => {
    const wake = channel as Channel;
    const number = ++requests;
    let seen = Atomics.load(wake, FLAG_WAKE);
    post({ type: 'request', bytes: bytes.buffer as ArrayBuffer }, [bytes.buffer as ArrayBuffer]);
    for (;;) {
      const message = port.receiveSync();
      // A late answer to an earlier request that stopped waiting is dropped.
      if (message?.type === 'reply' && (message.request === undefined || message.request === number)) return new Uint8Array(message.bytes);
      if (shouldStop()) return null;
      // The sequence is read before looking at the port, so a reply posted meanwhile ends the wait.
      if (message === undefined) Atomics.wait(wake, FLAG_WAKE, seen, WAIT_SLICE_MS);
      seen = Atomics.load(wake, FLAG_WAKE);
    }
  };

  /** Whether the last call succeeded with an input of RELEASE_MIN_BYTES or more (released once its result is on its way to the host, while the host reads the answer). */
  let releasable = false;
  const run = async (input: Uint8Array, timeoutMs: number): Promise<RunOutcome> => {
    posted = 0;
    releasable = false;
    const outcome = await (engine as WasmEngine).call(input, timeoutMs);
    releasable = outcome.ok && input.length >= RELEASE_MIN_BYTES;
    return outcome;
  };
  /**
   * After a big call's result went out: the guest frees what it kept of it. Not after a failed
   * call, whose instance the host discards (a trap may have left the guest's heap half-changed).
   */
  const release = async (): Promise<void> => {
    if (releasable) await engine?.release();
  };

  const postResult = (outcome: RunOutcome): void => {
    flush();
    const transfer = outcome.ok && outcome.output !== null ? [outcome.output.buffer as ArrayBuffer] : [];
    port.postMessage({ type: 'result', outcome }, transfer);
  };

  /** Drops the engine; with `renew`, starts a fresh one of the same guest. False when it stops serving. */
  const replace = async (renew: boolean): Promise<boolean> => {
    const closing = engine;
    engine = undefined;
    // The engine is discarded either way; a failing close leaves nothing to recover.
    await closing?.close().catch(() => undefined);
    if (!renew) {
      listening = false;
      port.postMessage({ type: 'released' });
      return false;
    }
    return start(init as InitMessage);
  };

  /** Serves channel commands until one needs the event loop (a posted call, leave, a failed renewal). */
  const listen = async (): Promise<void> => {
    const ch = channel as Channel;
    /** Whether the host was awake when the last result was published; null after a command that answered no call (nothing to poll for). */
    let hostAwake: boolean | null = null;
    /** When the last result was published (performance.now()). */
    let publishedAt = 0;
    for (;;) {
      const { seq, command, input, timeoutMs } = awaitCommand(ch, handled, hostAwake === null ? undefined : spin, hostAwake ?? false);
      handled = seq;
      // How long the host took to send it, at most (a wait that slept includes this thread's wake-up).
      if (hostAwake !== null) spin.took(hostAwake, performance.now() - publishedAt);
      if (command === Command.Leave || command === Command.Renew) {
        if (!(await replace(command === Command.Renew))) return;
        // The host takes the answer from its event loop: it sends nothing soon.
        hostAwake = null;
        continue;
      }
      if (command === Command.CallPosted) return;
      channelCall = true;
      const outcome = await run(input, timeoutMs);
      channelCall = false;
      if (fitsChannel(outcome)) {
        const bytes = memoryBytes;
        memoryBytes = -1;
        hostAwake = writeResult(ch, seq, outcome, posted, bytes);
      } else {
        postResult(outcome);
        hostAwake = writeResult(ch, seq, 'posted', posted);
      }
      publishedAt = performance.now();
      await release();
    }
  };

  /** Creates the engine of `message`; answers `ready` or `init-error`. */
  const start = async (message: InitMessage): Promise<boolean> => {
    port.postMessage({ type: 'starting' });
    try {
      engine = await createEngine(message.module, {
        name: message.name,
        limits: message.limits,
        grants: message.grants,
        ...(message.entry === undefined ? {} : { entry: message.entry }),
        interruptFlag: channel as Channel,
        bridge: {
          notify: (bytes) => post({ type: 'notify', bytes: bytes.buffer as ArrayBuffer }, [bytes.buffer as ArrayBuffer]),
          artifact: (bytes, envelope) => post({ type: 'artifact', bytes: bytes.buffer as ArrayBuffer, envelope }, [bytes.buffer as ArrayBuffer]),
          request,
          log,
          memory,
        },
      });
    } catch (error) {
      const e = error as { code?: unknown; message?: unknown; data?: unknown };
      listening = false;
      port.postMessage({
        type: 'init-error',
        error: { code: typeof e.code === 'string' || typeof e.code === 'number' ? (e.code as MepErrorCode) : LocalErrorCode.ExtensionCrashed, message: String(e.message ?? error), data: e.data },
      });
      return false;
    }
    port.postMessage({ type: 'ready' });
    return true;
  };

  port.onMessage(async (message) => {
    if (message.type === 'init') {
      init = message;
      channel = new Int32Array(message.flags);
      flow ??= createFlowWindow(channel);
      handled = Atomics.load(channel, CMD_SEQ);
      if (!(await start(message))) return;
      listening = message.listen;
      if (listening) await listen();
    } else if (message.type === 'call' && engine !== undefined) {
      postResult(await run(new Uint8Array(message.input), message.timeoutMs));
      await release();
      if (listening) await listen();
    } else if (message.type === 'renew' || message.type === 'leave') {
      // The same commands for a worker that does not listen (no Atomics.waitAsync on the host).
      await replace(message.type === 'renew');
    }
    // A 'reply' arriving here came after its request stopped waiting: nobody wants it.
  });
}
