/**
 * A guest runner whose engine lives in a worker thread, so a guest that never polls
 * `mep_interrupt` can still be killed at its deadline and the host thread stays responsive.
 * The thread comes from the pool of an injected {@link SpawnWasmWorker} (worker-pool.ts; Node
 * binding: `node/worker.ts`), keeping this file free of platform imports. Its phases: taking a
 * worker (under the start deadline), the call in flight (worker-call.ts), routing the worker's
 * messages, and release.
 *
 * A call that fits the shared channel goes through it (worker-channel.ts) and its result is
 * polled for briefly, then awaited with `Atomics.waitAsync`; anything else is posted with its
 * buffer transferred. Either way the notifications, logs and guest requests of a call are
 * delivered before its response, taken from the worker's port at once where the platform can.
 */
import { SLICED_FROM_CHARS } from '../../protocol/json-sliced.ts';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { Interrupt, serialize, type RunOutcome } from './engine.ts';
import type { WasmGrants, WasmLimits } from './limits.ts';
import type { GuestRunner, RunnerCallbacks } from './runner.ts';
import { createWorkerCalls, type WorkerCalls } from './worker-call.ts';
import { FLAG_INTERRUPT, FLAG_WAKE, RESULT_SEQ } from './worker-channel.ts';
import { workerPoolOf, type SpawnWasmWorker, type WorkerListener } from './worker-pool.ts';

/** How the runner's worker is taken: aborted by `signal` (its engine has the call deadline). */
export interface WorkerStartOptions {
  signal?: AbortSignal;
}

/** Takes a worker prepared for the guest from the pool of `spawn` and returns its runner. */
export async function createWorkerRunner(
  spawn: SpawnWasmWorker,
  module: WebAssembly.Module,
  options: { name: string; limits: WasmLimits; grants: WasmGrants; entry?: string },
  callbacks: RunnerCallbacks,
  start: WorkerStartOptions = {},
): Promise<GuestRunner> {
  const { name } = options;
  const worker = await workerPoolOf(spawn).acquire({ module, name, limits: options.limits, grants: options.grants, ...(options.entry === undefined ? {} : { entry: options.entry }) }, start);
  const channel = worker.channel;
  let released = false;
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

  const calls = createWorkerCalls({ name, worker, released: () => released, kill: () => void release(false), onLog: callbacks.onLog });
  const runner: GuestRunner = {
    canWaitForReply: true,
    run(input, timeoutMs) {
      if (released) {
        return Promise.resolve({ ok: false, error: serialize(crashed('it was already stopped')), guestError: false, interrupt: 0, elapsedMs: 0 });
      }
      return calls.run(input, timeoutMs);
    },
    interrupt(reason) {
      Atomics.store(channel, FLAG_INTERRUPT, reason);
      Atomics.add(channel, FLAG_WAKE, 1);
      Atomics.notify(channel, FLAG_WAKE);
    },
    reply(bytes) {
      if (released) return;
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      worker.post({ type: 'reply', bytes: owned.buffer as ArrayBuffer, request: worker.requests() }, [owned.buffer as ArrayBuffer]);
      Atomics.add(channel, FLAG_WAKE, 1);
      Atomics.notify(channel, FLAG_WAKE);
    },
    holdBack(held) {
      worker.holdFlow(held);
      return true;
    },
    async close() {
      // An idle guest's thread goes back to the pool (with a fresh engine); a running one is killed.
      const idle = !calls.busy;
      await release(idle);
      calls.finish({ ok: false, error: serialize(crashed('the transport was closed')), guestError: false, interrupt: Interrupt.Close, elapsedMs: 0 });
    },
  };
  worker.attach(
    routeWorkerMessages(runner, calls, callbacks, (error) => {
      if (released) return;
      released = true;
      const failure = crashed(error ? error.message : 'the thread exited', error);
      const started = calls.startedAt();
      if (started !== undefined) calls.finish({ ok: false, error: serialize(failure), guestError: false, interrupt: 0, elapsedMs: performance.now() - started });
      else callbacks.onDead(failure);
    }),
  );
  return runner;
}

/**
 * Where the worker's messages go: the transport's callbacks, counted as delivered for the call,
 * in the order posted. A message of 1 MiB and more is parsed in slices: what the worker posted
 * after it waits in order, and the call's result waits for it (`delivered`), so answers never
 * overtake its notifications.
 */
function routeWorkerMessages(runner: GuestRunner, calls: WorkerCalls, callbacks: RunnerCallbacks, exit: (error: Error | undefined) => void): WorkerListener {
  /** The large message being parsed and what came after it, in order; null when none. */
  let queue: Promise<void> | null = null;
  const handle = (message: Parameters<WorkerListener['message']>[0]): Promise<void> | undefined => {
    switch (message.type) {
      case 'notify': {
        const bytes = new Uint8Array(message.bytes);
        if (callbacks.onNotifySliced && bytes.length >= SLICED_FROM_CHARS) {
          // Past its budget it throws: the transport has failed already, and the worker is being stopped.
          return callbacks.onNotifySliced(bytes).catch(() => undefined).then(() => calls.delivered());
        }
        try {
          callbacks.onNotify(bytes);
        } catch {
          // Past its budget: the transport has failed already, and the worker is being stopped.
        }
        calls.delivered();
        return undefined;
      }
      case 'artifact':
        try {
          callbacks.onArtifact(new Uint8Array(message.bytes), message.envelope);
        } catch {
          // Past its budget: the transport has failed already, and the worker is being stopped.
        }
        calls.delivered();
        return undefined;
      case 'request': {
        const bytes = new Uint8Array(message.bytes);
        const answered = (reply: Uint8Array | null): void => {
          if (reply !== null) runner.reply(reply);
          calls.delivered();
        };
        // Past its budget it throws, as a notification does: the transport has failed already, and the worker is being stopped.
        if (callbacks.onRequestSliced && bytes.length >= SLICED_FROM_CHARS) return callbacks.onRequestSliced(bytes).then(answered, () => calls.delivered());
        let reply: Uint8Array | null;
        try {
          reply = callbacks.onRequest(bytes);
        } catch {
          calls.delivered();
          return undefined;
        }
        answered(reply);
        return undefined;
      }
      case 'log':
        callbacks.onLog(message.level, message.message);
        calls.delivered();
        return undefined;
      case 'result':
        calls.finish(message.outcome);
        return undefined;
    }
  };
  return {
    message(message) {
      if (queue === null) {
        const parsing = handle(message);
        if (parsing === undefined) return;
        queue = parsing;
      } else {
        queue = queue.then(() => handle(message));
      }
      const tail = queue;
      void tail.then(() => {
        if (queue === tail) queue = null;
      });
    },
    exit,
  };
}
