/**
 * An HTTP handler for edge runtimes (workerd, Cloudflare Workers, Deno Deploy, any `fetch`-style
 * server): POST a Morphir IR, get the backend's artifacts and diagnostics as JSON. Each request
 * runs in its own session on a fresh instance of the precompiled module, inline: edge runtimes
 * forbid compiling wasm bytes at run time and have no threads to kill a guest with. A guest that
 * calls the host (the QuickJS engine polls its interrupt) is stopped at `callTimeoutMs` all the
 * same (502 ERR_TIMEOUT); only a loop that never calls the host is left to the platform's CPU limit.
 */
import { isMepError, MepError, LocalErrorCode } from '../../../host/src/protocol/errors.ts';
import type { GenerateResult } from '../../../host/src/protocol/index.ts';
import { HOST_VERSION } from '../../../host/src/session/host-info.ts';
import { createSession, type Session } from '../../../host/src/session/session.ts';
import { createHostServer, type HostServer } from '../../../host/src/serve/host-server.ts';
import { withCheckedArtifacts } from '../../../host/src/session/checked-artifacts.ts';
import { deepInputError, findExcessNesting, MAX_INPUT_DEPTH } from '../../../host/src/protocol/json-depth.ts';
import { JsonText } from '../../../host/src/protocol/json-text.ts';
import { addOption } from '../../../host/src/protocol/option-value.ts';
import { createBodyReader, type BodyLimits } from './bounded-body.ts';
import { createWasmTransport, type WasmLimits } from '../../../host/src/transport/wasm/index.ts';

/** Host identity sent by edge embeddings. */
export const EDGE_HOST_INFO = { kind: 'edge', name: 'mep-runtime', version: HOST_VERSION } as const;

/** Options of {@link createGenerateHandler}. */
export interface GenerateHandlerOptions extends BodyLimits {
  /** The backend extension, compiled ahead of time (a wasm module binding). */
  module: WebAssembly.Module;
  /** Its name in messages. */
  name: string;
  /** Overrides of the default wasm limits. */
  limits?: Partial<WasmLimits>;
  /** Sessions (one a request) at once; past it 503 ERR_LIMIT. Default 64, as `mep serve`'s `--max-sessions`. */
  maxSessions?: number;
  /**
   * The host-channel trampoline, precompiled (`hostTrampolineBytes()` bound as a wasm module):
   * edge runtimes refuse to compile it at run time. Without it the guest runs degraded.
   */
  hostTrampoline?: WebAssembly.Module;
}

/** The JSON body of a successful answer. */
export interface GenerateResponseBody {
  extension: { id: string; version: string };
  target: string;
  success: boolean;
  artifacts: GenerateResult['artifacts'];
  diagnostics: GenerateResult['diagnostics'];
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

const failure = (status: number, code: string | number, message: string): Response => json(status, { error: { code, message } });

/**
 * `POST /?target=avro&representation=idl` with a Morphir IR body answers 200 with
 * {@link GenerateResponseBody} (422 when the backend reports `success: false`). Query
 * parameters other than `target` are backend options, parsed as JSON when valid (`logical_types=false`).
 * 400: the body is not a JSON object, or nests deeper than a request carries; 405: not a POST;
 * 413: the body is past `maxBodyBytes`; 502: the extension failed, or returned an unsafe artifact;
 * 503: `maxSessions` requests are running already.
 *
 * @example
 * import avro from './avro.wasm';
 * const handle = createGenerateHandler({ module: avro, name: 'avro' });
 * export default { fetch: (request) => handle(request) };
 */
export function createGenerateHandler(options: GenerateHandlerOptions): (request: Request) => Promise<Response> {
  const bodies = createBodyReader(options);
  // The served host's session slots: a session a request, at most `maxSessions` at once.
  const server = createHostServer({
    maxSessions: options.maxSessions,
    open: async () => ({ transport: await createWasmTransport({ name: options.name, module: options.module, isolation: 'inline', limits: options.limits, hostTrampoline: options.hostTrampoline, log: surfaceWarnings }) }),
  });
  return async (request) => {
    if (request.method !== 'POST') return failure(405, LocalErrorCode.Usage, 'POST a Morphir IR (morphir-ir.json) as the request body.');
    // As `mep generate` reads its input: within the body bound, checked (depth too) and sent as text.
    const read = await bodies.read(request);
    if ('refused' in read) return failure(read.refused.status, LocalErrorCode.Limit, read.refused.message);
    try {
      return await answer(read.text, request, server);
    } finally {
      read.release();
    }
  };
}

/** The answer to a generate request whose body is `text`. */
async function answer(text: string, request: Request, server: HostServer): Promise<Response> {
  let ir: JsonText;
  try {
    ir = JsonText.parse(text, { maxDepth: MAX_INPUT_DEPTH });
  } catch (error) {
    const deep = findExcessNesting(text, MAX_INPUT_DEPTH);
    if (deep >= 0) return failure(400, LocalErrorCode.Limit, deepInputError('The request body', deep).message);
    return failure(400, LocalErrorCode.Usage, `The body is not valid JSON (${(error as Error).message}); POST a Morphir IR (morphir-ir.json).`);
  }
  if (ir.kind !== 'object') return failure(400, LocalErrorCode.Usage, 'The body is not a JSON object; POST a Morphir IR distribution (morphir-ir.json).');

  const query = new URL(request.url).searchParams;
  // Read as `mep generate` reads `--option key=value`: `__proto__` an own option, `1e400` its text.
  const backendOptions: Record<string, unknown> = {};
  for (const [key, value] of query) {
    if (key !== 'target' && !addOption(backendOptions, key, value)) return failure(400, LocalErrorCode.Usage, `The option ${JSON.stringify(key)} is given twice in the query; give each option once.`);
  }

  let release: () => void;
  try {
    release = server.claimSlot('a POST / request');
  } catch (error) {
    return failure(503, (error as MepError).code, (error as MepError).message);
  }
  let session: Session | undefined;
  try {
    const { transport } = await server.open({ extension: 'POST /' }, { log: surfaceWarnings, signal: request.signal ?? new AbortController().signal });
    // The caller gets the artifacts to write: each is checked as `mep generate` checks what it writes.
    session = withCheckedArtifacts(createSession({ transport, host: EDGE_HOST_INFO }));
    const init = await session.start();
    const target = query.get('target') ?? init.capabilities.backend?.targets[0];
    if (target === undefined) throw new MepError(LocalErrorCode.Usage, `${init.extension.id} is not a backend extension: it advertises no target.`);
    const result = await session.generate({ ir, target, options: backendOptions });
    const body: GenerateResponseBody = {
      extension: { id: init.extension.id, version: init.extension.version },
      target,
      success: result.success,
      artifacts: result.artifacts,
      diagnostics: result.diagnostics,
    };
    return json(result.success ? 200 : 422, body);
  } catch (error) {
    if (!isMepError(error)) throw error;
    // Refusals before dispatch (an unadvertised target or IR version) are the caller's to fix.
    const status = typeof error.code === 'number' && error.code === -32013 ? 400 : 502;
    return failure(status, error.code, error.message);
  } finally {
    await session?.close();
    release();
  }
}

/** Guest and host warnings and errors go to the platform's console (its log); the rest is dropped. */
function surfaceWarnings(entry: { level: string; message: string; source: string }): void {
  if (entry.level === 'warn') console.warn(`${entry.source}: ${entry.message}`);
  else if (entry.level === 'error') console.error(`${entry.source}: ${entry.message}`);
}
