/**
 * A MEP 0.1 session with one extension, over any transport. It owns the lifecycle order
 * (initialize, validate, initialized, operations, shutdown, exit), version negotiation, claim-set
 * agreement and the refuse-before-dispatch checks. It never spawns a process or instantiates wasm.
 * This file assembles the public surface; the types are in types.ts and each phase lives in its
 * own file: session-core.ts (shared state), opening.ts (handshake and negotiation),
 * operations.ts (checks and dispatch), closing.ts (shutdown and close).
 */
import { LogParams, Method, ProgressParams } from '../protocol/index.ts';
import { sessionClosing } from './closing.ts';
import { openSession } from './opening.ts';
import { sessionOperations } from './operations.ts';
import { createSessionCore } from './session-core.ts';
import type { Session, SessionOptions } from './types.ts';

export type { CallOptions, GenerateOptions, Session, SessionOptions } from './types.ts';
export type { OutputLimits } from './output-budget.ts';

/**
 * Create a session over `options.transport`. Nothing is sent until `start()` or `describe()`.
 *
 * @example
 * const session = createSession({ transport });
 * try {
 *   await session.start();
 *   const result = await session.generate({ ir, target: 'avro', options: {} });
 * } finally {
 *   await session.close();
 * }
 */
export function createSession(options: SessionOptions): Session {
  const core = createSessionCore(options);
  const { lifecycle, peer } = core;
  return {
    get extension() {
      return core.extension;
    },
    get state() {
      return lifecycle.state;
    },
    get initializeResult() {
      return core.init;
    },
    peer,
    start: () => openSession(core),
    ...sessionOperations(core),
    ...sessionClosing(core),
    // Only what MEP 0.1 says these hold, its fields alone: a level out of range, a message that
    // is not a string or a field of the host's own (`sessionId`) went on to every listener as the
    // extension wrote it (`mep serve` showed one session's log as another's). Others are dropped
    // (already counted by the notification budget where they arrived).
    onProgress(listener) {
      return peer.onNotification(Method.Progress, (params: unknown) => {
        const parsed = ProgressParams.safeParse(params);
        if (!parsed.success) return;
        const { requestId, kind, message, percentage } = parsed.data;
        listener({ requestId, kind, ...(message === undefined ? {} : { message }), ...(percentage === undefined ? {} : { percentage }) });
      });
    },
    onLog(listener) {
      return peer.onNotification(Method.Log, (params: unknown) => {
        const parsed = LogParams.safeParse(params);
        if (parsed.success) listener({ level: parsed.data.level, message: parsed.data.message });
      });
    },
    onStateChange(listener) {
      return lifecycle.onChange(listener);
    },
  };
}
