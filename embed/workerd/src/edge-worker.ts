/**
 * The sample worker's routes, apart from its module bindings (worker.ts) so they run under test:
 * the MEP HTTP wire (mep-http-handler.ts) and `POST /` generate (generate-handler.ts), both behind
 * the bearer token of the `MEP_TOKEN` secret binding when one is bound (`GET /health` stays open,
 * as with `mep serve --http`).
 */
import { checkToken } from '../../../host/src/serve/http-guard.ts';
import { createGenerateHandler } from './generate-handler.ts';
import { createMepHttpHandler, refuse } from './mep-http-handler.ts';

/** The worker's bindings it reads: `MEP_TOKEN`, a secret (`wrangler secret put MEP_TOKEN`, or a workerd config binding). */
export interface EdgeWorkerEnv {
  MEP_TOKEN?: string | null;
}

/** Options of {@link createEdgeWorker}. */
export interface EdgeWorkerOptions {
  /** The extension, compiled ahead of time (a wasm module binding). */
  module: WebAssembly.Module;
  /** Its name in messages and its MEP route `/extensions/<name>`. */
  name: string;
  /** The host-channel trampoline, precompiled. */
  hostTrampoline?: WebAssembly.Module;
}

/**
 * A worker whose every route but `GET /health` asks for `Authorization: Bearer <env.MEP_TOKEN>`
 * when that secret is bound (401 otherwise, compared in constant time); with none bound, none is asked.
 *
 * @example
 * const worker = createEdgeWorker({ module: avro, name: 'avro', hostTrampoline });
 * export default { fetch: (request, env) => worker.fetch(request, env) };
 */
export function createEdgeWorker(options: EdgeWorkerOptions): { fetch(request: Request, env?: EdgeWorkerEnv): Promise<Response> } {
  const generate = createGenerateHandler({ module: options.module, name: `${options.name}.wasm`, hostTrampoline: options.hostTrampoline });
  // The secret is known only per request (env); the MEP handler, and its session pool, is kept while it stays the same.
  let mep: { token: string | undefined; handle: (request: Request) => Promise<Response | undefined> } | undefined;
  return {
    async fetch(request, env = {}) {
      const token = env.MEP_TOKEN ?? undefined;
      if (!mep || mep.token !== token) mep = { token, handle: createMepHttpHandler({ module: options.module, name: options.name, hostTrampoline: options.hostTrampoline, token }) };
      const answered = await mep.handle(request);
      if (answered) return answered;
      const refused = await checkToken((name) => request.headers.get(name) ?? undefined, token);
      return refused ? refuse(refused) : generate(request);
    },
  };
}
