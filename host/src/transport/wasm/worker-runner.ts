/**
 * A guest runner whose engine lives in a worker thread, so a guest that never polls
 * `mep_interrupt` can still be killed at its deadline and the host thread stays responsive.
 * The thread itself comes from an injected {@link SpawnWasmWorker} (Node binding:
 * `node/worker.ts`), keeping this file free of platform imports.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import { Interrupt, serialize, type RunOutcome } from './engine.ts';
import type { WasmGrants, WasmLimits } from './limits.ts';
import type { GuestRunner, RunnerCallbacks } from './runner.ts';
import { FLAG_INTERRUPT, FLAG_WAKE, type FromWorker, type ToWorker } from './worker-protocol.ts';

/** The host's handle on one worker thread running `serveWasmWorker`. */
export interface WasmWorkerHandle {
  postMessage(message: ToWorker, transfer?: Transferable[]): void;
  onMessage(listener: (message: FromWorker) => void): void;
  /** Called once when the worker stops on its own (crash, exit), not after `terminate()`. */
  onExit(listener: (error: Error | undefined) => void): void;
  /** Kills the thread, even in the middle of wasm code. */
  terminate(): Promise<void>;
}

/** Starts a worker thread running `serveWasmWorker` (see `createNodeWasmWorkerSpawner`). */
export type SpawnWasmWorker = () => Promise<WasmWorkerHandle>;

/** How long a guest may keep running after its deadline was signalled before it is killed. */
const KILL_GRACE_MS = 50;

/** Starts a worker, instantiates the guest there and returns its runner. */
export async function createWorkerRunner(
  spawn: SpawnWasmWorker,
  module: WebAssembly.Module,
  options: { name: string; limits: WasmLimits; grants: WasmGrants },
  callbacks: RunnerCallbacks,
): Promise<GuestRunner> {
  const { name } = options;
  const worker = await spawn();
  const flags = new Int32Array(new SharedArrayBuffer(8));
  let terminated = false;
  let current: { resolve: (outcome: RunOutcome) => void; started: number; timers: ReturnType<typeof setTimeout>[] } | null = null;
  let ready: { resolve: () => void; reject: (error: MepError) => void } | null = null;

  const wake = (): void => {
    Atomics.add(flags, FLAG_WAKE, 1);
    Atomics.notify(flags, FLAG_WAKE);
  };
  const finish = (outcome: RunOutcome): void => {
    const call = current;
    if (call === null) return;
    current = null;
    for (const timer of call.timers) clearTimeout(timer);
    call.resolve(outcome);
  };
  const kill = (): Promise<void> => {
    if (terminated) return Promise.resolve();
    terminated = true;
    return worker.terminate().then(() => undefined);
  };
  const crashed = (detail: string, cause?: unknown): MepError =>
    new MepError(LocalErrorCode.ExtensionCrashed, `The worker running wasm extension "${name}" stopped: ${detail}. Start a new session to retry.`, {
      data: { extension: name, detail },
      cause,
    });

  worker.onMessage((message) => {
    switch (message.type) {
      case 'ready':
        ready?.resolve();
        break;
      case 'init-error':
        ready?.reject(new MepError(message.error.code, message.error.message, { data: message.error.data }));
        break;
      case 'notify':
        callbacks.onNotify(new Uint8Array(message.bytes));
        break;
      case 'request': {
        const reply = callbacks.onRequest(new Uint8Array(message.bytes));
        if (reply !== null) runner.reply(reply);
        break;
      }
      case 'log':
        callbacks.onLog(message.level, message.message);
        break;
      case 'result':
        finish(message.outcome);
        break;
    }
  });
  worker.onExit((error) => {
    if (terminated) return;
    terminated = true;
    const failure = crashed(error ? error.message : 'the thread exited', error);
    ready?.reject(failure);
    if (current !== null) {
      finish({ ok: false, error: serialize(failure), guestError: false, interrupt: 0, elapsedMs: performance.now() - current.started });
    } else {
      callbacks.onDead(failure);
    }
  });

  await new Promise<void>((resolve, reject) => {
    ready = { resolve, reject };
    worker.postMessage({ type: 'init', module, name, limits: options.limits, grants: options.grants, flags: flags.buffer as SharedArrayBuffer });
  }).catch(async (error) => {
    await kill();
    throw error;
  });
  ready = null;

  const runner: GuestRunner = {
    canWaitForReply: true,
    run(input, timeoutMs) {
      if (terminated) {
        return Promise.resolve({ ok: false, error: serialize(crashed('it was already stopped')), guestError: false, interrupt: 0, elapsedMs: 0 });
      }
      Atomics.store(flags, FLAG_INTERRUPT, Interrupt.None);
      const owned = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength ? input : input.slice();
      return new Promise<RunOutcome>((resolve) => {
        const started = performance.now();
        const deadline = setTimeout(() => {
          // Cooperative guests see the flag; the rest are killed after a short grace period.
          Atomics.store(flags, FLAG_INTERRUPT, Interrupt.Deadline);
          wake();
          call.timers.push(
            setTimeout(() => {
              void kill();
              finish({
                ok: false,
                error: { code: LocalErrorCode.Timeout, message: `Wasm extension "${name}" was killed at its deadline of ${timeoutMs} ms. ${raiseAdvice('callTimeoutMs', timeoutMs)}`, data: { extension: name, limit: 'callTimeoutMs', timeoutMs } },
                guestError: false,
                interrupt: Interrupt.Deadline,
                elapsedMs: performance.now() - started,
              });
            }, KILL_GRACE_MS),
          );
        }, timeoutMs);
        const call = { resolve, started, timers: [deadline] };
        current = call;
        worker.postMessage({ type: 'call', input: owned.buffer as ArrayBuffer, timeoutMs }, [owned.buffer as ArrayBuffer]);
      });
    },
    interrupt(reason) {
      Atomics.store(flags, FLAG_INTERRUPT, reason);
      wake();
    },
    reply(bytes) {
      if (terminated) return;
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      worker.postMessage({ type: 'reply', bytes: owned.buffer as ArrayBuffer }, [owned.buffer as ArrayBuffer]);
      wake();
    },
    async close() {
      await kill();
      finish({ ok: false, error: serialize(crashed('the transport was closed')), guestError: false, interrupt: Interrupt.Close, elapsedMs: 0 });
    },
  };
  return runner;
}
