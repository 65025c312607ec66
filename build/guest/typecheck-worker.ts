/**
 * The thread that type-checks guests for {@link checkInWorker} (typecheck-pool.ts): TypeScript
 * is loaded there once, and the programs it keeps alive (typecheck.ts) make each later check of
 * the same entry incremental.
 */
import { parentPort } from 'node:worker_threads';
import { isMepError } from '../../host/src/protocol/errors.ts';
import { typecheckGuest, type TypecheckOptions } from './typecheck.ts';

/** A check asked of the thread. */
export interface CheckRequest {
  id: number;
  entry: string;
  options: TypecheckOptions;
}

/** Its answer: the problems, or the error that stopped the check. */
export type CheckResponse = { id: number; problems: import('./diagnostics.ts').Diagnostic[] } | { id: number; error: { message: string; code?: string } };

parentPort?.on('message', (request: CheckRequest) => {
  typecheckGuest(request.entry, request.options).then(
    (problems) => parentPort?.postMessage({ id: request.id, problems } satisfies CheckResponse),
    (error: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        error: { message: error instanceof Error ? error.message : String(error), ...(isMepError(error) ? { code: String(error.code) } : {}) },
      } satisfies CheckResponse),
  );
});
