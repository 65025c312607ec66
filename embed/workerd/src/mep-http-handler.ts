/**
 * The MEP HTTP wire in an edge worker: a thin `fetch`-style binding of the served host's HTTP
 * heart (`host/src/serve/http-rpc.ts`, the same one `mep serve --http` runs), so one client —
 * the `runtime "http"` transport, or the reference host's `HttpChannel` — talks to a local
 * server, a replica set or a worker alike. Sessions are the served host's pool, each a fresh
 * inline instance of the precompiled module (edge runtimes forbid compiling wasm at run time and
 * have no threads: a guest that polls the host's interrupt, as the QuickJS engine does, stops at
 * `callTimeoutMs`; a loop that never calls the host is left to the platform's CPU limit).
 */
import { encodeSseEvent } from '../../../host/src/framing/sse.ts';
import { ErrorCode, LocalErrorCode, MepError } from '../../../host/src/protocol/errors.ts';
import { createHostServer } from '../../../host/src/serve/host-server.ts';
import { checkContentType, checkOrigin, checkToken, type HttpRefusal } from '../../../host/src/serve/http-guard.ts';
import { createSessionPool } from '../../../host/src/serve/http-pool.ts';
import { HTTP_LIMITS } from '../../../host/src/serve/http-routes.ts';
import { answerHttpRpc, type HttpRpcReply } from '../../../host/src/serve/http-rpc.ts';
import { createUnsentBudget, type UnsentBudget } from '../../../host/src/serve/unsent-budget.ts';
import { createWasmTransport, type WasmLimits } from '../../../host/src/transport/wasm/index.ts';
import { createBodyReader, type BodyLimits } from './bounded-body.ts';
import type { JsonRpcMessage } from '../../../host/src/transport/types.ts';

/** Options of {@link createMepHttpHandler}. */
export interface MepHttpHandlerOptions extends BodyLimits {
  /** The extension, compiled ahead of time (a wasm module binding). */
  module: WebAssembly.Module;
  /** Its name in messages and its route: `/extensions/<name>`. */
  name: string;
  /** Overrides of the default wasm limits. */
  limits?: Partial<WasmLimits>;
  /** The host-channel trampoline, precompiled (see generate-handler.ts). */
  hostTrampoline?: WebAssembly.Module;
  /** A bearer token every request but `GET /health` must present (from a secret binding). */
  token?: string;
  /** Bytes of SSE events clients have not read, over all streams; past it the stream holding the most is dropped. Default 128 MiB, as `mep serve --http`'s. */
  maxUnsentBytes?: number;
  /** Browser origins allowed to call. Default none. */
  allowOrigins?: readonly string[];
}

/**
 * `POST /extensions/<name>` (and `POST /mep`) with one MEP JSON-RPC request answers as
 * `mep serve --http` does: JSON, or SSE with `Accept: text/event-stream`; `GET /health`.
 * Other paths answer undefined, for the worker's own routes.
 *
 * @example
 * const mep = createMepHttpHandler({ module: avro, name: 'avro' });
 * export default { fetch: async (request) => (await mep(request)) ?? new Response('not found', { status: 404 }) };
 */
export function createMepHttpHandler(options: MepHttpHandlerOptions): (request: Request) => Promise<Response | undefined> {
  const server = createHostServer({
    open: async (_request, { log }) => ({
      transport: await createWasmTransport({ name: options.name, module: options.module, isolation: 'inline', limits: options.limits, hostTrampoline: options.hostTrampoline, log }),
    }),
  });
  const pool = createSessionPool({ server, maxIdle: 1 });
  const bodies = createBodyReader(options);
  const unsent = createUnsentBudget(options.maxUnsentBytes ?? HTTP_LIMITS.maxPendingBytes);
  const guard = { token: options.token, allowOrigins: options.allowOrigins };

  return async (request) => {
    const path = new URL(request.url).pathname;
    const header = (name: string): string | undefined => request.headers.get(name) ?? undefined;
    if (path === '/health' && request.method === 'GET') return json(200, { status: 'ok' });
    if (path !== '/mep' && path !== `/extensions/${options.name}`) return undefined;
    const refused = checkOrigin(header, guard) ?? (await checkToken(header, guard.token));
    if (refused) return refuse(refused);
    if (request.method !== 'POST') return refuse({ status: 405, code: 'method', message: 'POST a JSON-RPC request.', headers: { allow: 'POST' } });
    const refusedType = checkContentType(header);
    if (refusedType) return refuse(refusedType);
    const read = await bodies.read(request);
    if ('refused' in read) return refuse(read.refused);
    const body = read.text;

    const controller = new AbortController();
    request.signal?.addEventListener('abort', () => controller.abort(new MepError(ErrorCode.RequestCancelled, 'The HTTP client closed the request.')), { once: true });
    if (!(header('accept') ?? '').includes('text/event-stream')) {
      try {
        const reply = await answerHttpRpc(pool, options.name, body, { signal: controller.signal });
        return reply.message ? json(reply.status, reply.message) : new Response(null, { status: 202 });
      } finally {
        read.release();
      }
    }
    // Streaming: the call's notifications as events, then its response; a cancelled stream cancels the call.
    return new Response(eventStream(unsent, controller, (emit) => answerHttpRpc(pool, options.name, body, { signal: controller.signal, emit }).finally(() => read.release())), {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    });
  };
}

/**
 * The SSE stream of one call: its messages wait in the stream's own queue until the client reads
 * them, counted in `unsent` with every other stream's: past its bound the stream holding the
 * most is dropped (`maxUnsentBytes`, the served host's rule), its queue freed and its call
 * cancelled, so a client that does not read holds no more than the bound.
 */
function eventStream(unsent: UnsentBudget, controller: AbortController, run: (emit: (message: JsonRpcMessage) => void) => Promise<HttpRpcReply>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failed: MepError | undefined;
  let wake: (() => void) | undefined;
  const slot = unsent.join({
    name: 'An SSE client of the edge worker',
    pending: () => queued,
    drop(reason, data) {
      failed = new MepError(LocalErrorCode.Limit, reason, { data });
      queue.length = 0;
      queued = 0;
      controller.abort(failed);
      wake?.();
    },
  });
  const emit = (message: JsonRpcMessage): void => {
    if (controller.signal.aborted) return;
    const bytes = encoder.encode(encodeSseEvent(JSON.stringify(message)));
    queue.push(bytes);
    queued += bytes.length;
    slot.update();
    wake?.();
  };
  void run(emit)
    .then((reply) => reply.message && emit(reply.message))
    .finally(() => {
      ended = true;
      wake?.();
    });
  return new ReadableStream<Uint8Array>(
    {
      async pull(sink) {
        while (queue.length === 0 && !ended && !failed) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        const next = failed ? undefined : queue.shift();
        if (next) {
          queued -= next.length;
          sink.enqueue(next);
          return;
        }
        slot.leave();
        if (failed) sink.error(failed);
        else sink.close();
      },
      cancel() {
        slot.leave();
        controller.abort(new MepError(ErrorCode.RequestCancelled, 'The HTTP client closed the stream.'));
      },
    },
    { highWaterMark: 0 },
  );
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** The JSON answer of a guard's refusal, with its headers. */
export function refuse(refusal: HttpRefusal): Response {
  return json(refusal.status, { error: { code: refusal.code, message: refusal.message } }, refusal.headers);
}
