/**
 * The context each handler receives: progress, logs, secrets and cancellation for the request it
 * is serving. Everything travels through the host; the guest has no ambient access.
 */
import { ErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { Method } from '../../host/src/protocol/index.ts';
import type { Artifact, LogLevel, ProgressKind } from '../../host/src/protocol/index.ts';
import type { GuestHost } from './guest-host.ts';

/** What a handler can do besides computing its result. */
export interface HandlerContext {
  /** The JSON-RPC id of the request being served. */
  readonly requestId: string | number;
  /** Report progress (`morphir.progress`); dropped when the host did not ask for progress. */
  progress(kind: ProgressKind, message?: string, percentage?: number): void;
  /** Send a log line to the host (`morphir.log`), never to stdout. */
  log(level: LogLevel, message: string): void;
  /**
   * Resolve a secret reference such as `env("TOKEN")` through the host (`secret.resolve`). The host
   * answers only for references the extension's manifest lists and the user approved; otherwise
   * this rejects with -32012.
   */
  secret(reference: string): Promise<string>;
  /** True once the host cancelled this request. */
  readonly cancelled: boolean;
  /** Throws the -32800 cancellation error when the host cancelled this request. */
  throwIfCancelled(): void;
}

/** Per-request state the dispatcher keeps. */
export interface RequestState {
  cancelled: boolean;
  /** True once the handler read ctx.cancelled (or called throwIfCancelled). */
  polled?: boolean;
}

let nextHostRequest = 0;

/** Builds the context for one request. */
export function createHandlerContext(host: GuestHost, requestId: string | number, state: RequestState, progressEnabled: boolean): HandlerContext {
  const ctx: HandlerContext = {
    requestId,
    progress(kind, message, percentage) {
      if (!progressEnabled) return;
      const params: Record<string, unknown> = { requestId, kind };
      if (message !== undefined) params.message = message;
      if (percentage !== undefined) params.percentage = Math.max(0, Math.min(100, percentage));
      host.notify({ jsonrpc: '2.0', method: Method.Progress, params });
    },
    log(level, message) {
      host.notify({ jsonrpc: '2.0', method: Method.Log, params: { level, message } });
    },
    async secret(reference) {
      const response = await host.request({ id: `guest-${++nextHostRequest}`, method: Method.SecretResolve, params: { reference } });
      if (response.error) throw new MepError(response.error.code, response.error.message, { data: response.error.data });
      if (typeof response.result !== 'string') {
        throw new MepError(ErrorCode.InternalError, `The host answered secret.resolve for ${reference} with a non-string value.`);
      }
      return response.result;
    },
    get cancelled() {
      state.polled = true;
      // The host first: a process binding delivers a $/cancelRequest that arrived meanwhile here.
      return host.interrupted() || state.cancelled;
    },
    throwIfCancelled() {
      if (ctx.cancelled) throw new MepError(ErrorCode.RequestCancelled, `Request ${JSON.stringify(requestId)} was cancelled by the host.`);
    },
  };
  return ctx;
}

/** The context of a generate handler: a {@link HandlerContext} that can also hand over artifacts as it goes. */
export interface GenerateContext extends HandlerContext {
  /**
   * Hand one artifact to the host now instead of in the result, so the backend need not hold
   * every artifact until it returns (streamed artifacts, an extension of MEP 0.1). With a host
   * that takes them (mep-runtime's) it is sent at once, as a message of its own; with any other
   * host it is kept and put in the result's `artifacts`, before the ones the handler returns.
   * Either way the host receives the emitted artifacts first, in the order emitted.
   */
  emit(artifact: Artifact): void;
}

/** What the dispatcher learns from a generate handler's emits. */
export interface EmitRecord {
  /** Sent to the host as morphir.backend.artifact. */
  streamed: number;
  /** Kept for the result: the host does not take streamed artifacts, or one could not be sent. */
  readonly kept: Artifact[];
}

const isArtifact = (a: unknown): a is Artifact => {
  if (typeof a !== 'object' || a === null) return false;
  const { path, content, binary } = a as Record<string, unknown>;
  return typeof path === 'string' && path.length > 0 && typeof content === 'string' && typeof binary === 'boolean' && Object.keys(a).length === 3;
};

/** Adds `emit` to `ctx`: streamed to the host when `streaming`, else kept in `record`. */
export function createGenerateContext(ctx: HandlerContext, host: GuestHost, streaming: boolean, record: EmitRecord): GenerateContext {
  const generate = Object.create(ctx) as GenerateContext;
  generate.emit = (artifact) => {
    if (!isArtifact(artifact)) {
      throw new MepError(ErrorCode.InternalError, 'ctx.emit takes one artifact: exactly { path: a non-empty string, content: a string, binary: a boolean }.');
    }
    // Once one had to be kept, keep the rest too: the host gets them in the order emitted.
    // Raw bytes beside an envelope where the host offers it, else the MEP 0.1 notification: the same artifact.
    if (streaming && record.kept.length === 0 && (host.artifact?.(ctx.requestId, artifact) === true || host.notify({ jsonrpc: '2.0', method: Method.BackendArtifact, params: { requestId: ctx.requestId, artifact } }))) {
      record.streamed++;
    } else {
      record.kept.push(artifact);
    }
  };
  return generate;
}
