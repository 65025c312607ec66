/**
 * The call in flight on a pooled worker (worker-runner.ts assembles the runner around it): sending
 * it through the shared channel or as a message, taking its result, holding that result until
 * every notification, log and guest request of the call was delivered, and its deadline — the
 * interrupt flag first, then, after a short grace, the thread killed.
 */
import { LocalErrorCode } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import { setLongTimeout, type CancelTimer } from '../long-timer.ts';
import { guestMemoryLine, Interrupt, type LogLevel, type RunOutcome } from './engine.ts';
import { awaitResult, CHANNEL_DATA_BYTES, Command, createSpinPolicy, FLAG_INTERRUPT, FLAG_WAKE, postCommand, readResult, RESULT_FOR, RESULT_SEQ, sendCommand } from './worker-channel.ts';
import type { PooledWorker } from './worker-pool.ts';

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
  timers: CancelTimer[];
  /** Messages of this call delivered so far, and how many the worker posted (once known). */
  received: number;
  posted: number;
  /** An outcome read from the channel, held until every message of the call was delivered. */
  pending?: RunOutcome;
  /** The guest's memory after the call (its engine's log line), read with the outcome. */
  memoryBytes?: number;
  /** Whether the worker was awake when the call was sent through the channel (the kind of wait for its result). */
  workerAwake: boolean;
}

/** What the calls of one runner need from it. */
export interface WorkerCallContext {
  name: string;
  worker: PooledWorker;
  /** True once the worker was released (or died): nothing more is sent. */
  released(): boolean;
  /** Gives the worker up for good (it is killed at a deadline). */
  kill(): void;
  onLog(level: LogLevel, message: string): void;
}

/** The calls of one runner, one at a time. */
export interface WorkerCalls {
  /** True while a call runs. */
  readonly busy: boolean;
  /** Runs one call; resolves with its outcome once its messages were delivered. Never rejects. */
  run(input: Uint8Array, timeoutMs: number): Promise<RunOutcome>;
  /** Ends the running call (if any) with `outcome`. */
  finish(outcome: RunOutcome): void;
  /** One message of the running call was delivered to the transport. */
  delivered(): void;
  /** When the call started (performance.now()), or undefined without one. */
  startedAt(): number | undefined;
}

/** Creates the call tracker of one runner. */
export function createWorkerCalls(context: WorkerCallContext): WorkerCalls {
  const { name, worker } = context;
  const channel = worker.channel;
  const spin = createSpinPolicy({ awakeMs: HOST_SPIN_MS, asleepMs: HOST_SPIN_MS });
  let current: Call | null = null;

  const wake = (): void => {
    Atomics.add(channel, FLAG_WAKE, 1);
    Atomics.notify(channel, FLAG_WAKE);
  };
  const finish = (outcome: RunOutcome): void => {
    const call = current;
    if (call === null) return;
    current = null;
    for (const cancel of call.timers) cancel();
    call.resolve(outcome);
  };
  const finishWhenDelivered = (): void => {
    const call = current;
    if (call?.pending === undefined || call.received < call.posted) return;
    // The engine's line after the call came with the result: it is the call's last message.
    if (call.memoryBytes !== undefined) context.onLog('debug', guestMemoryLine(call.memoryBytes));
    finish(call.pending);
  };

  /**
   * Takes the published result of `call`, held until its messages are delivered, or the 'result'
   * message that carries it. Those messages are queued already: they are taken now where the
   * platform can, rather than after an event-loop turn.
   */
  const take = (call: Call): void => {
    const { outcome, posted, memoryBytes } = readResult(channel);
    if (outcome === null) {
      while (current === call && worker.receive());
      return;
    }
    // What the guest took teaches the poll for the next result when this one was not caught by it.
    spin.took(call.workerAwake, outcome.elapsedMs);
    call.pending = outcome;
    call.posted = posted;
    call.memoryBytes = memoryBytes;
    while (current === call && call.received < posted && worker.receive());
    finishWhenDelivered();
  };
  /** Awaits the result of `call`, sent as command `seq`; a watcher whose call is over just ends. */
  const watch = (call: Call, seq: number): void => {
    const bumps = Atomics.load(channel, RESULT_SEQ);
    if (context.released() || current !== call) return;
    if (Atomics.load(channel, RESULT_FOR) === seq) return take(call);
    // `Atomics.waitAsync`: the pool only listens where it exists.
    awaitResult(channel, bumps, () => watch(call, seq));
  };

  /** The deadline: cooperative guests see the flag; the rest are killed after a short grace period. */
  const arm = (call: Call, timeoutMs: number): void => {
    call.timers.push(
      setLongTimeout(() => {
        Atomics.store(channel, FLAG_INTERRUPT, Interrupt.Deadline);
        wake();
        call.timers.push(
          setLongTimeout(() => {
            context.kill();
            finish({
              ok: false,
              error: { code: LocalErrorCode.Timeout, message: `Wasm extension "${name}" was killed at its deadline of ${timeoutMs} ms. ${raiseAdvice('callTimeoutMs', timeoutMs)}`, data: { extension: name, limit: 'callTimeoutMs', timeoutMs } },
              guestError: false,
              interrupt: Interrupt.Deadline,
              elapsedMs: performance.now() - call.started,
            });
          }, KILL_GRACE_MS),
        );
      }, timeoutMs),
    );
  };

  return {
    get busy() {
      return current !== null;
    },
    run(input, timeoutMs) {
      Atomics.store(channel, FLAG_INTERRUPT, Interrupt.None);
      return new Promise<RunOutcome>((resolve) => {
        const call: Call = { resolve, started: performance.now(), timers: [], received: 0, posted: 0, workerAwake: false };
        current = call;
        if (worker.listens && input.length <= CHANNEL_DATA_BYTES) {
          const { seq, workerAwake } = postCommand(channel, Command.Call, input, timeoutMs);
          call.workerAwake = workerAwake;
          // A quick guest answers within the poll: its result is taken without an event-loop turn.
          spin.spin(() => Atomics.load(channel, RESULT_FOR) === seq, workerAwake);
          watch(call, seq);
          // Answered already: no deadline to arm.
          if (current !== call) return;
        } else {
          const owned = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength ? input : input.slice();
          worker.post({ type: 'call', input: owned.buffer as ArrayBuffer, timeoutMs }, [owned.buffer as ArrayBuffer]);
          if (worker.listens) sendCommand(channel, Command.CallPosted);
        }
        arm(call, timeoutMs);
      });
    },
    finish,
    delivered() {
      if (current === null) return;
      current.received++;
      finishWhenDelivered();
    },
    startedAt: () => current?.started,
  };
}
