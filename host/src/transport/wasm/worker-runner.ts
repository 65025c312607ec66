/**
 * A guest runner whose engine lives in a worker thread, so a guest that never polls
 * `mep_interrupt` can still be killed at its deadline and the host thread stays responsive.
 * The thread comes from the pool of an injected {@link SpawnWasmWorker} (worker-pool.ts; Node
 * binding: `node/worker.ts`), keeping this file free of platform imports.
 *
 * A call that fits the shared channel goes through it (worker-channel.ts) and its result is
 * polled for briefly, then awaited with `Atomics.waitAsync`; anything else is posted with its
 * buffer transferred. Either way the notifications, logs and guest requests of a call are
 * delivered before its response, taken from the worker's port at once where the platform can.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import { Interrupt, serialize, type RunOutcome } from './engine.ts';
import type { WasmGrants, WasmLimits } from './limits.ts';
import type { GuestRunner, RunnerCallbacks } from './runner.ts';
import { CHANNEL_DATA_BYTES, Command, createSpinPolicy, FLAG_INTERRUPT, FLAG_WAKE, readResult, RESULT_FOR, RESULT_SEQ, sendCommand } from './worker-channel.ts';
import { workerPoolOf } from './worker-pool.ts';
import type { FromWorker, ToWorker } from './worker-protocol.ts';

/** The host's handle on one worker thread running `serveWasmWorker`. */
export interface WasmWorkerHandle {
  postMessage(message: ToWorker, transfer?: Transferable[]): void;
  onMessage(listener: (message: FromWorker) => void): void;
  /**
   * Takes the next message the worker posted without waiting for the event loop to deliver it,
   * if there is one (it is then not delivered to the `onMessage` listener); optional.
   */
  receiveSync?(): FromWorker | undefined;
  /** Called once when the worker stops on its own (crash, exit), not after `terminate()`. */
  onExit(listener: (error: Error | undefined) => void): void;
  /** Kills the thread, even in the middle of wasm code. */
  terminate(): Promise<void>;
  /** Lets the process exit while this (idle) worker runs; optional. */
  unref?(): void;
  /** Undoes {@link unref} while a session holds the worker; optional. */
  ref?(): void;
}

/** Starts a worker thread running `serveWasmWorker` (see `createNodeWasmWorkerSpawner`). */
export type SpawnWasmWorker = () => Promise<WasmWorkerHandle>;

/** `Atomics.waitAsync` (ES2024; Node 16+, Chromium, Safari 16.4); the pool only listens where it exists. */
interface AtomicsWithWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** How long a guest may keep running after its deadline was signalled before it is killed. */
const KILL_GRACE_MS = 50;

/**
 * Longest the host thread polls the channel for the result right after sending a call, before it
 * awaits it through the event loop (ms): this bounds how long a call holds the host's event loop.
 * A small call to a polling worker is answered within it: a ping takes 3-10 µs on a quiet machine
 * and up to 20-30 µs on a crowded one, where a 10 µs poll missed often and each miss cost the
 * event loop's wake-up (the worker ping measured 35-60 µs, against 24-35 µs with this bound).
 * Behind a slower guest the polls fail and back off (worker-channel.ts): one call in 65 polls at most.
 */
const HOST_SPIN_MS = 0.03;

interface Call {
  resolve(outcome: RunOutcome): void;
  started: number;
  timers: ReturnType<typeof setTimeout>[];
  /** Messages of this call delivered so far, and how many the worker posted (once known). */
  received: number;
  posted: number;
  /** An outcome read from the channel, held until every message of the call was delivered. */
  pending?: RunOutcome;
  /** The engine's log line after the call, read with the outcome. */
  note?: string;
}

/** Takes a worker prepared for the guest from the pool of `spawn` and returns its runner. */
export async function createWorkerRunner(
  spawn: SpawnWasmWorker,
  module: WebAssembly.Module,
  options: { name: string; limits: WasmLimits; grants: WasmGrants; entry?: string },
  callbacks: RunnerCallbacks,
): Promise<GuestRunner> {
  const { name } = options;
  const worker = await workerPoolOf(spawn).acquire({ module, name, limits: options.limits, grants: options.grants, ...(options.entry === undefined ? {} : { entry: options.entry }) });
  const channel = worker.channel;
  let released = false;
  let current: Call | null = null;
  const spin = createSpinPolicy(HOST_SPIN_MS);

  const wake = (): void => {
    Atomics.add(channel, FLAG_WAKE, 1);
    Atomics.notify(channel, FLAG_WAKE);
  };
  const finish = (outcome: RunOutcome): void => {
    const call = current;
    if (call === null) return;
    current = null;
    for (const timer of call.timers) clearTimeout(timer);
    call.resolve(outcome);
  };
  const finishWhenDelivered = (): void => {
    const call = current;
    if (call?.pending === undefined || call.received < call.posted) return;
    // The engine's line after the call came with the result: it is the call's last message.
    if (call.note !== undefined) callbacks.onLog('debug', call.note);
    finish(call.pending);
  };
  let releasing: Promise<void> | undefined;
  const release = (reusable: boolean): Promise<void> => {
    if (releasing === undefined) {
      released = true;
      // Wakes a result watcher that would otherwise wait for a worker that is gone.
      Atomics.notify(channel, RESULT_SEQ);
      releasing = worker.release(reusable);
    }
    return releasing;
  };
  const crashed = (detail: string, cause?: unknown): MepError =>
    new MepError(LocalErrorCode.ExtensionCrashed, `The worker running wasm extension "${name}" stopped: ${detail}. Start a new session to retry.`, {
      data: { extension: name, detail },
      cause,
    });

  /**
   * Takes the published result of `call`, held until its messages are delivered, or the 'result'
   * message that carries it. Those messages are queued already: they are taken now where the
   * platform can, rather than after an event-loop turn.
   */
  const take = (call: Call): void => {
    const { outcome, posted, note } = readResult(channel);
    if (outcome === null) {
      while (current === call && worker.receive());
      return;
    }
    call.pending = outcome;
    call.posted = posted;
    call.note = note;
    while (current === call && call.received < posted && worker.receive());
    finishWhenDelivered();
  };
  /** Awaits the result of `call`, sent as command `seq`; a watcher whose call is over just ends. */
  const watch = (call: Call, seq: number): void => {
    const bumps = Atomics.load(channel, RESULT_SEQ);
    if (released || current !== call) return;
    if (Atomics.load(channel, RESULT_FOR) === seq) return take(call);
    const waiting = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(channel, RESULT_SEQ, bumps);
    if (waiting.async) void waiting.value.then(() => watch(call, seq));
    else watch(call, seq);
  };
  const delivered = (): void => {
    if (current === null) return;
    current.received++;
    finishWhenDelivered();
  };

  worker.attach({
    message(message) {
      switch (message.type) {
        case 'notify':
          callbacks.onNotify(new Uint8Array(message.bytes));
          delivered();
          break;
        case 'request': {
          const reply = callbacks.onRequest(new Uint8Array(message.bytes));
          if (reply !== null) runner.reply(reply);
          delivered();
          break;
        }
        case 'log':
          callbacks.onLog(message.level, message.message);
          delivered();
          break;
        case 'result':
          finish(message.outcome);
          break;
      }
    },
    exit(error) {
      if (released) return;
      released = true;
      const failure = crashed(error ? error.message : 'the thread exited', error);
      if (current !== null) {
        finish({ ok: false, error: serialize(failure), guestError: false, interrupt: 0, elapsedMs: performance.now() - current.started });
      } else {
        callbacks.onDead(failure);
      }
    },
  });

  const runner: GuestRunner = {
    canWaitForReply: true,
    run(input, timeoutMs) {
      if (released) {
        return Promise.resolve({ ok: false, error: serialize(crashed('it was already stopped')), guestError: false, interrupt: 0, elapsedMs: 0 });
      }
      Atomics.store(channel, FLAG_INTERRUPT, Interrupt.None);
      return new Promise<RunOutcome>((resolve) => {
        const started = performance.now();
        const call: Call = { resolve, started, timers: [], received: 0, posted: 0 };
        current = call;
        if (worker.listens && input.length <= CHANNEL_DATA_BYTES) {
          const seq = sendCommand(channel, Command.Call, input, timeoutMs);
          // A quick guest answers within the poll: its result is taken without an event-loop turn.
          spin.spin(() => Atomics.load(channel, RESULT_FOR) === seq);
          watch(call, seq);
          // Answered already: no deadline to arm.
          if (current !== call) return;
        } else {
          const owned = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength ? input : input.slice();
          worker.post({ type: 'call', input: owned.buffer as ArrayBuffer, timeoutMs }, [owned.buffer as ArrayBuffer]);
          if (worker.listens) sendCommand(channel, Command.CallPosted);
        }
        call.timers.push(
          setTimeout(() => {
            // Cooperative guests see the flag; the rest are killed after a short grace period.
            Atomics.store(channel, FLAG_INTERRUPT, Interrupt.Deadline);
            wake();
            call.timers.push(
              setTimeout(() => {
                void release(false);
                finish({
                  ok: false,
                  error: { code: LocalErrorCode.Timeout, message: `Wasm extension "${name}" was killed at its deadline of ${timeoutMs} ms. ${raiseAdvice('callTimeoutMs', timeoutMs)}`, data: { extension: name, limit: 'callTimeoutMs', timeoutMs } },
                  guestError: false,
                  interrupt: Interrupt.Deadline,
                  elapsedMs: performance.now() - started,
                });
              }, KILL_GRACE_MS),
            );
          }, timeoutMs),
        );
      });
    },
    interrupt(reason) {
      Atomics.store(channel, FLAG_INTERRUPT, reason);
      wake();
    },
    reply(bytes) {
      if (released) return;
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      worker.post({ type: 'reply', bytes: owned.buffer as ArrayBuffer, request: worker.requests() }, [owned.buffer as ArrayBuffer]);
      wake();
    },
    async close() {
      // An idle guest's thread goes back to the pool (with a fresh engine); a running one is killed.
      const idle = current === null;
      await release(idle);
      finish({ ok: false, error: serialize(crashed('the transport was closed')), guestError: false, interrupt: Interrupt.Close, elapsedMs: 0 });
    },
  };
  return runner;
}
