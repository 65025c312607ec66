/**
 * Conformance: a running request that is cancelled ends quickly (MEP 0.1, Cancellation: "An
 * extension that advertises cancellation should stop useful work and respond with error code
 * -32800"). The case cancels a generate (or compile) once the extension reports progress for it,
 * or after a short while, and reads the extension's own answer off the transport: -32800, or its
 * result when it finished before the cancellation reached it, within {@link CANCEL_BOUND_MS}.
 * An extension that keeps working past the bound fails, whatever it answers later.
 */
import { ErrorCode } from '../protocol/errors.ts';
import { Method } from '../protocol/index.ts';
import type { Capabilities } from '../protocol/index.ts';
import { setLongTimeout } from '../transport/long-timer.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import type { ConformanceCase } from './case.ts';
import { conformanceFixtures, describeCode, expect } from './context.ts';
import businessTerms from '../../../fixtures/mep/ir/business-terms.json' with { type: 'json' };

/** How long a cancelled request may take to answer: `mep`'s default grace after Ctrl+C. */
export const CANCEL_BOUND_MS = 2_000;
/** How long the case waits for the request's first progress before it cancels anyway. */
const CANCEL_AFTER_MS = 100;

function operationOf(caps: Capabilities | undefined): [string, unknown] | undefined {
  if (caps?.backend?.generate) {
    const versions = caps.backend.irVersions ?? [];
    const ir = versions.includes('3') ? businessTerms : { ...businessTerms, formatVersion: Number(versions[0] ?? 3) };
    return [Method.BackendGenerate, { ir, target: caps.backend.targets[0] ?? 'conformance', options: {} }];
  }
  if (caps?.frontend?.compile) return [Method.FrontendCompile, conformanceFixtures.compile];
  return undefined;
}

/** Cancellation cases. */
export const cancellationCases: ConformanceCase[] = [
  {
    name: 'a cancelled request answers -32800 within the bound',
    category: 'cancellation',
    skip: (caps) => (caps?.cancellation !== true ? 'the extension does not advertise cancellation' : operationOf(caps) ? undefined : 'the extension advertises no generate or compile to cancel'),
    async run(ctx) {
      const init = await ctx.initialize();
      const [method, params] = operationOf(init.capabilities) as [string, unknown];
      const id = 'cancel-1';
      let cancelledAt: number | undefined;
      let settle!: (message: JsonRpcMessage) => void;
      const answered = new Promise<JsonRpcMessage>((resolve) => (settle = resolve));
      let cancel = (): void => undefined;
      let overdue!: () => void;
      const late = new Promise<'late'>((resolve) => (overdue = () => resolve('late')));
      let lateTimer = (): void => undefined;
      const stop = ctx.transport.onMessage((message) => {
        if (message.id === id && !('method' in message)) settle(message);
        else if (message.method === Method.Progress && (message.params as { requestId?: unknown } | undefined)?.requestId === id) cancel();
      });
      const controller = new AbortController();
      cancel = () => {
        if (cancelledAt !== undefined) return;
        cancelledAt = performance.now();
        lateTimer = setLongTimeout(overdue, CANCEL_BOUND_MS);
        // $/cancelRequest, plus the transport's own interrupt where it has one (wasm).
        controller.abort();
      };
      const call = ctx.peer.request(method, params, { id, signal: controller.signal, timeoutMs: 0 }).catch(() => undefined);
      const early = setLongTimeout(cancel, CANCEL_AFTER_MS);
      try {
        const answer = await Promise.race([answered, late, ctx.closed.then(() => undefined)]);
        expect(answer !== 'late', `the cancelled ${method} did not answer within ${CANCEL_BOUND_MS} ms of $/cancelRequest: the extension kept working`);
        expect(answer !== undefined, 'the transport closed before the cancelled request was answered');
        if (cancelledAt === undefined) return; // it finished before anything could be cancelled
        const waited = performance.now() - cancelledAt;
        expect(waited <= CANCEL_BOUND_MS, `the cancelled ${method} answered ${waited.toFixed(0)} ms after $/cancelRequest, more than ${CANCEL_BOUND_MS} ms`);
        const error = answer.error as { code?: unknown } | undefined;
        expect(error === undefined || error.code === ErrorCode.RequestCancelled, `the cancelled ${method} answered with error ${describeCode(error?.code)}, expected ${describeCode(ErrorCode.RequestCancelled)}`);
      } finally {
        early();
        lateTimer();
        stop();
        await call;
      }
    },
  },
];
