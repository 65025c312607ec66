/**
 * One extension session held by the served host for one client: runs `session/call` operations
 * through the {@link Session} (so lifecycle and capability checks apply before dispatch), tags
 * progress and log notifications with the session id and the client's request id, and closes
 * the extension for good, within a grace period, when asked or when the client goes away.
 */
import {
  CompileParams,
  GenerateParams,
  Method,
  TransformParams,
  ValidateParams,
  decodeParams,
} from '../protocol/index.ts';
import type { LogParams, ProgressParams } from '../protocol/index.ts';
import { preserialize } from '../framing/json-sliced-stringify.ts';
import { MepError, isMepError } from '../protocol/errors.ts';
import type { JsonRpcId } from '../rpc/index.ts';
import type { CallOptions, Session } from '../session/session.ts';
import { withCheckedArtifacts } from '../session/checked-artifacts.ts';
import { longDelay } from '../transport/long-timer.ts';
import type { Transport } from '../transport/types.ts';
import { ServeMethod, type CallableMethod } from './methods.ts';

/** Sends one notification to the session's client. */
export type Notify = (method: string, params: Record<string, unknown>) => void;

/** A session as the served host holds it; see {@link createServedSession}. */
export interface ServedSession {
  readonly id: string;
  readonly session: Session;
  /** Run one MEP operation; `clientId` is the client's request id, used to tag progress. */
  call(method: CallableMethod, params: unknown, options: ServedCallOptions): Promise<unknown>;
  /** Run `work` on the session as one call of the client (its progress tagged the same way). */
  run(work: (session: Session, options: CallOptions) => Promise<unknown>, options: ServedCallOptions): Promise<unknown>;
  /**
   * End the session: graceful shutdown for at most `graceMs`, then the transport is closed
   * (the process killed, the worker terminated). Idempotent.
   */
  close(graceMs: number): Promise<void>;
}

/** How a client's call runs: its request id, its cancellation, its deadline. */
export interface ServedCallOptions {
  clientId: JsonRpcId;
  signal: AbortSignal;
  timeoutMs?: number;
  /**
   * The params were decoded already, with the method's schema (body-off-thread.ts), and their
   * large members are JsonText: they are not decoded (nor written ahead) again.
   */
  decoded?: boolean;
}

type Operation = (session: Session, params: unknown, options: CallOptions) => Promise<unknown>;

/** A client's params as they will be sent, written ahead in slices when large (json-sliced-stringify.ts): the transport's send writes them in one call otherwise. */
const sliced = <T>(params: T, o: CallOptions): Promise<T> => preserialize(params, o.signal);

const OPERATIONS: Record<CallableMethod, Operation> = {
  [Method.BackendGenerate]: async (s, p, o) => s.generate(await sliced(decodeParams(GenerateParams, p, Method.BackendGenerate), o), o),
  [Method.FrontendCompile]: async (s, p, o) => s.compile(await sliced(decodeParams(CompileParams, p, Method.FrontendCompile), o), o),
  [Method.ValidatorValidate]: async (s, p, o) => s.validate(await sliced(decodeParams(ValidateParams, p, Method.ValidatorValidate), o), o),
  [Method.TransformTransform]: async (s, p, o) => s.transform(await sliced(decodeParams(TransformParams, p, Method.TransformTransform), o), o),
  [Method.Describe]: (s, _p, o) => s.describe(o),
  [Method.Ping]: (s, _p, o) => s.ping(o),
  [Method.Info]: (s, _p, o) => s.info(o),
  [Method.Capabilities]: (s, _p, o) => s.capabilities(o),
};

/** The operations on params decoded already (ServedCallOptions.decoded): those the host only forwards. */
const DECODED: Partial<Record<CallableMethod, Operation>> = {
  [Method.BackendGenerate]: (s, p, o) => s.generate(p as GenerateParams, o),
  [Method.ValidatorValidate]: (s, p, o) => s.validate(p as ValidateParams, o),
  [Method.TransformTransform]: (s, p, o) => s.transform(p as TransformParams, o),
};

/**
 * `error` as the client sees it: a `data.id` naming our id for the call (ERR_TIMEOUT and
 * cancellations carry one) names the client's request id instead, so the server's internal ids
 * ("h1.1", "s2.3") never reach a client. Anything else passes unchanged.
 */
function inClientTerms(error: unknown, callId: string, clientId: JsonRpcId): unknown {
  if (!isMepError(error)) return error;
  const data = error.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || (data as { id?: unknown }).id !== callId) return error;
  return new MepError(error.code, error.message, { data: { ...data, id: clientId }, cause: error });
}

/**
 * Wires `opened` (over `transport`) to its client under the id `id`. Its `generate` hands the
 * client only artifacts `mep generate` would write (withCheckedArtifacts: ERR_ARTIFACT for `../x`,
 * `/etc/x`, controls, bidi overrides), streamed or collected: a client showing or writing them
 * should not have to be the one to check what an extension returned.
 */
export function createServedSession(id: string, opened: Session, transport: Transport, notify: Notify): ServedSession {
  // Paths and content checked; the count stays the server's own output limits' (--max-output-files).
  const session = withCheckedArtifacts(opened, { maxArtifacts: Number.POSITIVE_INFINITY });
  /** Our request id towards the extension → the client's request id, for progress. */
  const clientIds = new Map<JsonRpcId, JsonRpcId>();
  let nextCall = 1;
  let closing: Promise<void> | undefined;

  const disposers = [
    session.onProgress((progress: ProgressParams) => {
      // Only a call the client is waiting for has progress to show: a call it cancelled or that
      // passed its deadline may still run in the extension (cancellation is cooperative), and
      // its reports went out under the server's own id for it ("s1.1"), to that client or, in
      // the HTTP pool, to the next one; the session's own requests have no client call at all.
      const clientId = clientIds.get(progress.requestId);
      if (clientId !== undefined) notify(ServeMethod.Progress, { ...progress, sessionId: id, requestId: clientId });
    }),
    // The host's own fields last: what the extension sent cannot name another session or source.
    session.onLog((log: LogParams) => notify(ServeMethod.Log, { ...log, sessionId: id, source: 'extension' })),
  ];

  const run: ServedSession['run'] = async (work, { clientId, signal, timeoutMs }) => {
    // A string id of our own, so it can never collide with the numeric ids the session assigns.
    const callId = `${id}.${nextCall++}`;
    clientIds.set(callId, clientId);
    try {
      return await work(session, { id: callId, signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    } catch (error) {
      throw inClientTerms(error, callId, clientId);
    } finally {
      clientIds.delete(callId);
    }
  };

  return {
    id,
    session,
    call: (method, params, options) => run((s, o) => ((options.decoded ? DECODED[method] : undefined) ?? OPERATIONS[method])(s, params, o), options),
    run,
    close(graceMs) {
      closing ??= (async () => {
        const grace = longDelay(graceMs, () => undefined);
        try {
          await Promise.race([session.close(), grace.promise]);
        } finally {
          grace.cancel();
          // Whatever the extension did, nothing of it may outlive the session.
          await transport.close();
          for (const dispose of disposers) dispose();
        }
      })();
      return closing;
    },
  };
}
