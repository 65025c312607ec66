/**
 * A MEP 0.1 session with one extension, over any transport. It owns the lifecycle order
 * (initialize, validate, initialized, operations, shutdown, exit), version negotiation, claim-set
 * agreement and the refuse-before-dispatch checks. It never spawns a process or instantiates wasm.
 * This file assembles the public surface; the types are in types.ts and each phase lives in its
 * own file: session-core.ts (shared state), opening.ts (handshake and negotiation),
 * operations.ts (checks and dispatch), closing.ts (shutdown and close).
 */
import { Method } from '../protocol/index.ts';
import type { LogParams, ProgressParams } from '../protocol/index.ts';
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
    onProgress(listener) {
      return peer.onNotification(Method.Progress, (params: unknown) => void listener(params as ProgressParams));
    },
    onLog(listener) {
      return peer.onNotification(Method.Log, (params: unknown) => void listener(params as LogParams));
    },
    onStateChange(listener) {
      return lifecycle.onChange(listener);
    },
  };
}
