/**
 * What a conformance case works with: a fresh transport to the extension under test, a raw
 * JSON-RPC peer (no session: the cases test the extension's own refusals), and assertions.
 */
import { ErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { InitializeResult, Method, decodeResult } from '../protocol/index.ts';
import type { Capabilities } from '../protocol/index.ts';
import type { Peer } from '../rpc/index.ts';
import { setLongTimeout } from '../transport/long-timer.ts';
import type { JsonRpcMessage, Transport } from '../transport/types.ts';
import fixtures from '../../../fixtures/mep/conformance.json' with { type: 'json' };

/** The conformance fixtures (fixtures/mep/conformance.json). */
export const conformanceFixtures = fixtures;

/** A failed expectation inside a case; its message is printed beside the case name. */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
}

/** Throws a {@link ConformanceFailure} with `message` unless `condition` holds. */
export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceFailure(message);
}

/** The environment of one case. */
export interface CaseContext {
  readonly transport: Transport;
  readonly peer: Peer;
  /** Capabilities the extension advertised in the probe session (undefined if it failed). */
  readonly capabilities: Capabilities | undefined;
  /** Resolves with the close error (or undefined) once the transport closes by itself. */
  readonly closed: Promise<MepError | undefined>;
  /** Every message received that was not a response (notifications, requests). */
  readonly unsolicited: JsonRpcMessage[];
  /** The options bag the operation cases send (`mep conformance --option k=v`; default `{}`). */
  readonly options: Record<string, unknown>;
  /** A request with the case's timeout. */
  request(method: string, params: unknown, id?: string | number): Promise<unknown>;
  /** initialize (with `id`) → validated result → initialized notification. */
  initialize(id?: string | number): Promise<InitializeResult>;
  /** Awaits a request that must fail with `code`; returns the error. */
  expectError(promise: Promise<unknown>, code: number, what: string): Promise<MepError>;
  /** Sends raw bytes-as-text when the transport supports it (false when it does not). */
  sendRaw(body: string): boolean;
  /** Waits for the next response to a raw message (the peer reports it as an unknown id). */
  nextOrphanResponse(timeoutMs?: number): Promise<JsonRpcMessage>;
}

const CODE_NAMES = new Map<unknown, string>(Object.entries(ErrorCode).map(([k, v]) => [v, k]));

/** "-32601 (MethodNotFound)" for messages. */
export function describeCode(code: unknown): string {
  const name = CODE_NAMES.get(code);
  return name ? `${String(code)} (${name})` : String(code);
}

/** Builds a {@link CaseContext}. */
export function createCaseContext(transport: Transport, peer: Peer, capabilities: Capabilities | undefined, requestTimeoutMs: number, options: Record<string, unknown> = {}): CaseContext {
  let resolveClosed!: (error: MepError | undefined) => void;
  const closed = new Promise<MepError | undefined>((r) => (resolveClosed = r));
  transport.onClose((error) => resolveClosed(error));
  const unsolicited: JsonRpcMessage[] = [];
  const orphans: JsonRpcMessage[] = [];
  const orphanWaiters: ((m: JsonRpcMessage) => void)[] = [];
  transport.onMessage((message) => {
    if (!('id' in message) || 'method' in message) unsolicited.push(message);
  });
  peer.onProtocolError((_error, message) => {
    if (!message) return;
    const waiter = orphanWaiters.shift();
    if (waiter) waiter(message);
    else orphans.push(message);
  });

  const ctx: CaseContext = {
    transport,
    peer,
    capabilities,
    closed,
    unsolicited,
    options,
    request(method, params, id) {
      return peer.request(method, params, { timeoutMs: requestTimeoutMs, id });
    },
    async initialize(id) {
      const raw = await ctx.request(Method.Initialize, fixtures.initialize, id);
      const result = decodeResult(InitializeResult, raw, 'the initialize result') as InitializeResult;
      peer.notify(Method.Initialized, {});
      return result;
    },
    async expectError(promise, code, what) {
      try {
        await promise;
      } catch (error) {
        if (isMepError(error) && error.code === code) return error;
        const got = isMepError(error) ? `error ${describeCode(error.code)}: ${error.message}` : String(error);
        throw new ConformanceFailure(`${what}: expected error ${describeCode(code)}, got ${got}`);
      }
      throw new ConformanceFailure(`${what}: expected error ${describeCode(code)}, got a result`);
    },
    sendRaw(body) {
      if (!transport.sendRaw) return false;
      transport.sendRaw(body);
      return true;
    },
    nextOrphanResponse(timeoutMs = requestTimeoutMs) {
      const ready = orphans.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const cancelTimer = setLongTimeout(() => reject(new ConformanceFailure(`no response within ${timeoutMs} ms`)), timeoutMs);
        orphanWaiters.push((m) => {
          cancelTimer();
          resolve(m);
        });
      });
    },
  };
  return ctx;
}
