/**
 * The guest-side dispatcher: one JSON-RPC message in, at most one response out. It owns the
 * protocol so authors do not: envelope checks, the lifecycle (MEP 0.1, Lifecycle), version
 * negotiation, describe, parameter validation and error mapping. It is the only place that turns
 * an unknown throw into InternalError.
 */
import type * as z from 'zod';
import { ErrorCode, MepError, isMepError } from '../../host/src/protocol/errors.ts';
import {
  CompileResult,
  DescribeParams,
  EmptyParams,
  GenerateParams,
  GenerateResult,
  InitializeParams,
  Method,
  PRE_INITIALIZE_METHODS,
  PROTOCOL_VERSIONS,
  TransformParams,
  TransformResult,
  ValidateParams,
  ValidateResult,
  decodeParams,
  normalizeCompileParams,
} from '../../host/src/protocol/index.ts';
import { isOutOfMemory, jsonBytesAtLeast } from './answer-size.ts';
import { createGenerateContext, createHandlerContext } from './context.ts';
import type { EmitRecord, HandlerContext, RequestState } from './context.ts';
import type { AuthorDiagnostic } from './answers.ts';
import type { Extension } from './define-extension.ts';
import type { GuestHost } from './guest-host.ts';
import { pristine } from './pristine.ts';
import { box, includes, isThenable, jsonParse, jsonStringify, mapOps, record, setOps, then, toText, type Box } from './primordials.ts';

type Id = string | number | null;
type Response = { jsonrpc: '2.0'; id: Id; result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** Lifecycle of the guest: before initialize, initialized, after shutdown. */
type GuestState = 'loaded' | 'ready' | 'stopped';

const OPERATIONS = new Set<string>([Method.FrontendCompile, Method.BackendGenerate, Method.ValidatorValidate, Method.TransformTransform]);

const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

function errorResponse(id: Id, code: number, message: string, data?: unknown): Response {
  const error: Response['error'] = record({ code, message });
  if (data !== undefined) error.data = data;
  return record<Response>({ jsonrpc: '2.0', id, error });
}

/**
 * The JSON text of a response, written with the built-ins as they were when the PDK loaded: the
 * envelope is the PDK's, only `value` (a handler's result) is the extension's to shape.
 */
function envelope(id: Id, key: 'result' | 'error', value: unknown): string {
  return `{"jsonrpc":"2.0","id":${jsonStringify(id)},"${key}":${jsonStringify(value) ?? 'null'}}`;
}

const writeResponse = (r: Response): string => (r.error !== undefined ? envelope(r.id, 'error', r.error) : envelope(r.id, 'result', r.result));

/** Fill `success` and `diagnostics` an author left out: success means "no error diagnostic". */
function complete<T extends { success?: boolean; diagnostics?: AuthorDiagnostic[] }>(answer: T): T & { success: boolean; diagnostics: AuthorDiagnostic[] } {
  const diagnostics = answer.diagnostics ?? [];
  let failed = false;
  for (let i = 0; i < diagnostics.length; i++) failed ||= diagnostics[i]!.severity === 'error';
  const success = answer.success ?? !failed;
  return { ...answer, success, diagnostics };
}

/** A dispatcher bound to one extension and one host. */
export interface Dispatcher {
  /**
   * Handle one message (raw JSON text): the response text, or undefined for a notification. It
   * is returned directly when every handler involved answered synchronously, and as a promise
   * otherwise — in the wasm engine each promise costs scheduled jobs, so the sync path matters.
   */
  dispatch(text: string): string | undefined | Promise<string | undefined>;
  /**
   * {@link Dispatcher.dispatch} for a message the binding parses itself: `read` returns it
   * parsed, or throws when it is not valid JSON.
   */
  dispatchParsed(read: () => unknown): string | undefined | Promise<string | undefined>;
  /** The current lifecycle state (for tests and bindings). */
  readonly state: GuestState;
}

/**
 * Create the dispatcher for `extension`, talking to the host through `host`.
 *
 * @example
 * const dispatcher = createDispatcher(extension, host);
 * const reply = await dispatcher.dispatch('{"jsonrpc":"2.0","id":1,"method":"morphir.ping"}');
 */
export function createDispatcher(extension: Extension, host: GuestHost): Dispatcher {
  const def = extension.definition;
  let state: GuestState = 'loaded';
  let progressEnabled = true;
  // The host takes morphir.backend.artifact notifications (initialize capabilities).
  let artifactStream = false;
  const running = new Map<string | number, RequestState>();
  // $/cancelRequest may overtake its request in a concurrent host: remember it (bounded).
  const cancelledEarly = new Set<string | number>();

  function operation(method: string, params: unknown, ctx: HandlerContext): unknown {
    switch (method) {
      case Method.BackendGenerate: {
        if (!def.backend) break;
        // Checked, then handed over as the request's own object rather than zod's copy: nothing
        // else holds the IR, so a handler that sets `params.ir = null` once it has read it lets
        // the engine free the parsed document in the middle of the call.
        decodedParams(GenerateParams, params, method);
        const p = params as GenerateParams;
        // MEP 0.1, Backend generation: several targets → an unknown target is a diagnostic, never a default.
        if (def.backend.targets.length > 1 && !includes(def.backend.targets, p.target)) {
          return { success: false, artifacts: [], diagnostics: [{ severity: 'error', code: 'MEP_UNKNOWN_TARGET', message: `Target '${p.target}' is not one of this extension's targets (${def.backend.targets.join(', ')}).` }] };
        }
        const record: EmitRecord = { streamed: 0, kept: [] };
        return settle(def.backend.generate(p, createGenerateContext(ctx, host, artifactStream, record)), (a) => checked(GenerateResult, withEmitted(complete(a), record), method));
      }
      case Method.FrontendCompile: {
        if (!def.frontend) break;
        const p = normalizedCompileParams(params);
        // `modules` defaults to none, like `diagnostics`: a failed compile often has neither.
        return settle(def.frontend.compile(p, ctx), (a) => checked(CompileResult, complete({ modules: [], ...a }), method));
      }
      case Method.ValidatorValidate: {
        if (!def.validator) break;
        return settle(def.validator.validate(decodedParams(ValidateParams, params, method), ctx), (a) => checked(ValidateResult, complete(a), method));
      }
      case Method.TransformTransform: {
        if (!def.transform) break;
        return settle(def.transform.transform(decodedParams(TransformParams, params, method), ctx), (a) => checked(TransformResult, complete(a), method));
      }
    }
    throw new MepError(ErrorCode.MethodNotFound, `Method '${method}' is not supported by extension '${def.info.id}'.`);
  }

  /** The result of one request: a value, or a promise when the handler is asynchronous. */
  function request(id: string | number | null, method: string, params: unknown): unknown {
    if (method === Method.Initialize && state !== 'stopped') {
      if (state !== 'loaded') throw new MepError(ErrorCode.InvalidRequest, `Extension '${def.info.id}' is already initialized.`);
      const p = decodeParams(InitializeParams, params, method);
      let version: string | undefined;
      for (let i = 0; i < PROTOCOL_VERSIONS.length && version === undefined; i++) if (includes(p.protocolVersions, PROTOCOL_VERSIONS[i]!)) version = PROTOCOL_VERSIONS[i];
      if (!version) {
        throw new MepError(ErrorCode.ProtocolVersionMismatch, 'No compatible Morphir Extension Protocol version.', {
          data: { hostVersions: p.protocolVersions, extensionVersions: [...PROTOCOL_VERSIONS] },
        });
      }
      progressEnabled = p.capabilities?.progress !== false;
      artifactStream = p.capabilities?.artifactStream === true;
      state = 'ready';
      return { protocolVersion: version, extension: { ...def.info }, capabilities: extension.capabilities };
    }
    const allowedNow = state === 'ready' || (state === 'loaded' && includes(PRE_INITIALIZE_METHODS as readonly string[], method));
    if (!allowedNow) {
      const when = state === 'loaded' ? 'before morphir.initialize' : 'after morphir.shutdown';
      throw new MepError(ErrorCode.NotInitialized, `Method '${method}' is not allowed ${when}.`);
    }
    if (method === Method.Exit) throw new MepError(ErrorCode.InvalidRequest, 'morphir.exit is a notification; send it without an id.');
    if (method === Method.Ping || method === Method.Info || method === Method.Capabilities || method === Method.Shutdown) {
      // Fast path: the common shapes need no schema run (absent params or an object).
      if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) decodeParams(EmptyParams, params, method);
    }
    switch (method) {
      case Method.Ping:
        return { ok: true };
      case Method.Describe: {
        const p = decodeParams(DescribeParams, params, method);
        let known = false;
        for (let i = 0; i < PROTOCOL_VERSIONS.length; i++) known ||= includes(p.protocolVersions, PROTOCOL_VERSIONS[i]!);
        if (!known) {
          throw new MepError(ErrorCode.ProtocolVersionMismatch, 'No compatible Morphir Extension Protocol version.', {
            data: { hostVersions: p.protocolVersions, extensionVersions: [...PROTOCOL_VERSIONS] },
          });
        }
        return extension.claims;
      }
      case Method.Info:
        return { ...def.info, types: extension.claims.extension.types };
      case Method.Capabilities:
        return extension.capabilities;
      case Method.Shutdown:
        state = 'stopped';
        return {};
    }
    const requestState: RequestState = { cancelled: id !== null && setOps.delete(cancelledEarly, id) };
    if (id === null) return operation(method, params, createHandlerContext(host, 'null', requestState, progressEnabled));
    mapOps.set(running, id, requestState);
    // MEP 0.1, Cancellation: a cancelled request answers -32800, whatever its handler did after
    // it saw ctx.cancelled (returned early, threw, or finished): the host has stopped waiting.
    const cancelled = (): MepError => {
      // Advertised but never looked at: the handler kept working to its end. Say so to the author.
      if (def.cancellation === true && requestState.polled !== true) {
        host.notify({ jsonrpc: '2.0', method: Method.Log, params: { level: 'warn', message: `Extension '${def.info.id}' advertises cancellation (defineExtension({ cancellation: true })), but its ${method} handler never read ctx.cancelled while request ${JSON.stringify(id)} was cancelled: it worked to its end. Check ctx.cancelled in its long loops, or drop cancellation: true.` } });
      }
      return new MepError(ErrorCode.RequestCancelled, `Request ${JSON.stringify(id)} to extension '${def.info.id}' was cancelled.`);
    };
    const done = () => void mapOps.delete(running, id);
    // One more look at the host once the handler is done: a cancellation that arrived while a
    // handler that never read ctx.cancelled ran still makes the answer -32800. In wasm the host
    // says so itself (its interrupt, what ctx.cancelled read): a handler that saw it and returned
    // early answers -32800 too, not the partial result of a cut-short loop.
    const wasCancelled = (): boolean => host.interrupted() || requestState.cancelled;
    let out: unknown;
    try {
      out = operation(method, params, createHandlerContext(host, id, requestState, progressEnabled));
    } catch (error) {
      const stop = wasCancelled();
      done();
      throw stop ? cancelled() : error;
    }
    if (isThenable(out)) {
      return then(
        out,
        (value) => {
          const stop = wasCancelled();
          done();
          if (stop) throw cancelled();
          return value;
        },
        (error: unknown) => {
          const stop = wasCancelled();
          done();
          throw stop ? cancelled() : error;
        },
      );
    }
    const stop = wasCancelled();
    done();
    if (stop) throw cancelled();
    return out;
  }

  function notification(method: string, params: unknown): void {
    if (method === Method.Exit) {
      // As in LSP: exiting in the middle of a session (no shutdown) is an error exit; a describe-only
      // conversation (MEP 0.1, Capability claims) or a shut-down session ends cleanly.
      const clean = state !== 'ready';
      state = 'stopped';
      host.exit(clean ? 0 : 1);
    } else if (method === Method.CancelRequest) {
      const id = (params as { id?: unknown } | undefined)?.id;
      if (!isId(id)) return;
      const target = mapOps.get(running, id);
      if (target) target.cancelled = true;
      else if (cancelledEarly.size < 1024) setOps.add(cancelledEarly, id);
    }
    else if (state === 'ready' && OPERATIONS.has(method)) {
      // An operation sent as a notification still runs (the reference SDKs do); it gets no reply.
      try {
        const out = request(null, method, params);
        if (isThenable(out)) then(out, () => undefined, () => undefined);
      } catch {
        // A notification gets no reply, not even an error one (JSON-RPC 2.0).
      }
    }
    // morphir.initialized and unknown notifications need nothing (notifications get no reply).
  }

  // Only bad JSON is the sender's fault; running out of memory or time while parsing is the
  // engine's, and must reach the host as such (a limit error), not as a -32700 with a null id.
  const parseError = (error: unknown): string => {
    if (!(error instanceof SyntaxError)) throw error;
    return writeResponse(errorResponse(null, ErrorCode.ParseError, 'Parse error: the message is not valid JSON.'));
  };

  function dispatch(text: string): string | undefined | Promise<string | undefined> {
    let message: unknown;
    try {
      message = jsonParse(text);
    } catch (error) {
      return parseError(error);
    }
    // The raw message (the whole IR of a generate request) is not needed once parsed: let the
    // engine free it before the handler runs instead of holding both for the whole call.
    text = '';
    return handle(message);
  }

  function dispatchParsed(read: () => unknown): string | undefined | Promise<string | undefined> {
    let message: unknown;
    try {
      message = read();
    } catch (error) {
      return parseError(error);
    }
    return handle(message);
  }

  function handle(message: unknown): string | undefined | Promise<string | undefined> {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return writeResponse(errorResponse(null, ErrorCode.InvalidRequest, 'Invalid request: a message must be a JSON object.'));
    }
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const hasId = 'id' in m;
    const id: Id = hasId && (isId(m.id) || m.id === null) ? (m.id as Id) : null;
    if (m.jsonrpc !== '2.0' || typeof m.method !== 'string' || (hasId && !isId(m.id) && m.id !== null)) {
      // A response from the host to a guest request never arrives here (bindings route those).
      return writeResponse(errorResponse(id, ErrorCode.InvalidRequest, 'Invalid request: expected {"jsonrpc":"2.0","method":string,"id"?:string|integer}.'));
    }
    if (!hasId) {
      notification(m.method, m.params);
      return undefined;
    }
    const method = m.method;
    const answer = (result: unknown): string => {
      try {
        return envelope(id, 'result', result);
      } catch (error) {
        if (!isOutOfMemory(error)) throw error;
        return tooBigToWrite(id, result, def.info.id, method, error as Error);
      }
    };
    const refuse = (error: unknown) => writeResponse(toErrorResponse(id, error, def.info.id, method));
    let result: unknown;
    try {
      result = request(id, method, m.params);
    } catch (error) {
      return refuse(error);
    }
    // An asynchronous answer arrives boxed (see settle).
    return isThenable(result) ? then(result, (b) => answer((b as Box<unknown>).value), refuse) : answer(result);
  }

  return {
    dispatch,
    dispatchParsed,
    get state() {
      return state;
    },
  };
}

/**
 * The result with what the handler emitted: the count of streamed artifacts, and the kept ones
 * before those it returned. A handler that never emits gets its answer back unchanged.
 */
function withEmitted<T extends { artifacts?: unknown[]; success: boolean }>(answer: T, record: EmitRecord): T & { artifacts: unknown[]; streamedArtifacts?: number } {
  // A failed result carries no artifacts it kept (a host publishes none of a failure anyway).
  const artifacts = record.kept.length > 0 && answer.success ? (record.kept as unknown[]).concat(answer.artifacts ?? []) : (answer.artifacts ?? []);
  return { ...answer, artifacts, ...(record.streamed > 0 ? { streamedArtifacts: record.streamed } : {}) };
}

/**
 * `params` decoded by `schema` with the platform's own functions (pristine). Apart from
 * `operation`, whose closures a handler's promise keeps: in V8 one closure capturing `params`
 * there would keep the whole request (its IR) for as long as any of them lives.
 */
function decodedParams<S extends z.ZodType>(schema: S, params: unknown, method: string): z.output<S> {
  return pristine(() => decodeParams(schema, params, method));
}

/** {@link normalizeCompileParams} with the platform's own functions, apart as {@link decodedParams}. */
function normalizedCompileParams(params: unknown): ReturnType<typeof normalizeCompileParams> {
  return pristine(() => normalizeCompileParams(params));
}

/**
 * Applies `next` to `value` now, or once it resolves when it is a promise: then the answer comes
 * boxed, so that resolving the PDK's promise with it looks up no `then` on the answer.
 */
function settle<T, U>(value: T | PromiseLike<T>, next: (v: T) => U): U | Promise<Box<U>> {
  return isThenable(value) ? then(value, (v) => box(next(v))) : next(value as T);
}

function checked<S extends { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }>(schema: S, value: unknown, method: string): unknown {
  const parsed = pristine(() => schema.safeParse(value));
  if (parsed.success) return value;
  const issue = parsed.error?.issues[0];
  throw new MepError(ErrorCode.InternalError, `The extension's ${method} handler returned an invalid result${issue ? ` (${issue.path.map(String).join('.')}: ${issue.message})` : ''}.`);
}

/**
 * The answer to a request whose result ran out of memory while it was written: an InternalError
 * saying how big it is at least (`data.answerBytesAtLeast`), so the host can name every limit it
 * needs. Measured after the failed text is gone; if even that fails, the error propagates.
 */
function tooBigToWrite(id: Id, result: unknown, extensionId: string, method: string, error: Error): string {
  const bytes = jsonBytesAtLeast({ jsonrpc: '2.0', id, result });
  return writeResponse(
    errorResponse(id, ErrorCode.InternalError, `Extension '${extensionId}' ran out of memory writing its answer to ${method} (${error.message}; at least ${bytes} bytes of JSON).`, {
      reason: 'out-of-memory',
      answerBytesAtLeast: bytes,
    }),
  );
}

function toErrorResponse(id: Id, error: unknown, extensionId: string, method: string): Response {
  if (isMepError(error) && typeof error.code === 'number') return errorResponse(id, error.code, error.message, error.data);
  const message = error instanceof Error ? error.message : toText(error);
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined;
  return errorResponse(id, ErrorCode.InternalError, `Extension '${extensionId}' failed in ${method}: ${message}`, stack ? { stack } : undefined);
}
