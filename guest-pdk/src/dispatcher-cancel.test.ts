// The dispatcher's side of cancellation: what it advertises, how a cancelled call is answered
// (a $/cancelRequest, or the host's interrupt in wasm), and the warning for an extension that
// advertises cancellation but never looks.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MepError } from '../../host/src/protocol/errors.ts';
import { defineExtension } from './define-extension.ts';
import type { GenerateAnswer } from './answers.ts';
import type { GenerateContext } from './context.ts';
import { createDispatcher } from './dispatcher.ts';
import { textArtifact } from './results.ts';
import { INIT, call, fakeHost, handlerGate } from './testing/dispatcher-harness.ts';

const Cancel = suite('dispatcher :: cancellation');

Cancel('should advertise cancellation only when the author says its handlers check ctx.cancelled', async () => {
  const validator = { irVersions: ['3'], validate: () => ({}) };
  for (const [cancellation, advertised] of [[undefined, false], [false, false], [true, true]] as const) {
    const ext = defineExtension({ info: { id: 'a', name: 'A', version: '1.0.0' }, ...(cancellation === undefined ? {} : { cancellation }), validator });
    const d = createDispatcher(ext, fakeHost().host);
    const init = await call(d, 'morphir.initialize', INIT, 1);
    assert.is(init.result.capabilities.cancellation, advertised, `cancellation: ${String(cancellation)}`);
    assert.is(ext.claims.capabilities.cancellation, advertised);
  }
  // A misspelt or mistyped flag is refused, not dropped.
  assert.throws(() => defineExtension({ info: { id: 'a', name: 'A', version: '1.0.0' }, cancellation: 'yes' as never, validator }), (e: MepError) => /cancellation/.test(JSON.stringify(e.data)));
});

/**
 * A backend whose generate waits at a gate and then runs `after`; the call is cancelled with
 * $/cancelRequest while it waits. Resolves with the answer and what the guest sent the host.
 */
async function cancelledMidCall(after: (ctx: GenerateContext) => GenerateAnswer, { id = 'slow-1', cancellation }: { id?: string; cancellation?: boolean } = {}) {
  const { arrive, arrived, gate, release } = handlerGate();
  const ext = defineExtension({
    info: { id: 'slow', name: 'Slow', version: '1.0.0' },
    ...(cancellation === undefined ? {} : { cancellation }),
    backend: {
      targets: ['t'],
      irVersions: ['3'],
      async generate(_p, ctx) {
        arrive();
        await gate;
        return after(ctx);
      },
    },
  });
  const { host, sent } = fakeHost();
  const d = createDispatcher(ext, host);
  await call(d, 'morphir.initialize', INIT, 0);
  const pending = call(d, 'morphir.backend.generate', { ir: {}, target: 't' }, id);
  await arrived;
  await d.dispatch(JSON.stringify({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } }));
  release();
  return { answer: await pending, sent };
}

Cancel('should report cancellation through the context', async () => {
  const { answer } = await cancelledMidCall((ctx) => {
    ctx.throwIfCancelled();
    return { artifacts: [] };
  });
  assert.is(answer.error?.code, -32800);
});

Cancel("should answer -32800 when the host's interrupt stopped the handler early (wasm), not its cut-short result", async () => {
  // As in wasm: no $/cancelRequest reaches the guest mid-call; the host's interrupt is what
  // ctx.cancelled reads, and the loop that saw it returns what it had so far.
  let interrupt = false;
  const { host } = fakeHost();
  host.interrupted = () => interrupt;
  const ext = defineExtension({
    info: { id: 'loop', name: 'Loop', version: '1.0.0' },
    backend: {
      targets: ['t'],
      irVersions: ['3'],
      generate(_p, ctx) {
        let i = 0;
        for (; i < 1e6 && !ctx.cancelled; i++) if (i === 10) interrupt = true;
        return { artifacts: [textArtifact('partial.txt', String(i))] };
      },
    },
  });
  const d = createDispatcher(ext, host);
  await call(d, 'morphir.initialize', INIT, 0);
  const answer = await call(d, 'morphir.backend.generate', { ir: {}, target: 't' }, 'loop-1');
  assert.is(answer.error?.code, -32800, JSON.stringify(answer));
  interrupt = false;
  assert.ok((await call(d, 'morphir.ping', {}, 2)).result, 'the next call is answered');
});

Cancel('should tell the author when an extension advertising cancellation never read ctx.cancelled in a cancelled call', async () => {
  for (const poll of [false, true]) {
    const { answer, sent } = await cancelledMidCall((ctx) => (poll && ctx.cancelled ? { artifacts: [] } : { artifacts: [textArtifact('all.txt', 'done')] }), { id: 'g', cancellation: true });
    assert.is(answer.error?.code, -32800);
    const warnings = sent.filter((m) => (m as { method?: string }).method === 'morphir.log').map((m) => (m as { params: { message: string } }).params.message);
    if (poll) assert.equal(warnings, []);
    else assert.match(warnings.join('\n'), /advertises cancellation .* never read ctx\.cancelled while request "g" was cancelled/);
  }
});

Cancel.run();
