/**
 * Cancel-to-answer latency (issue 35): `node --import tsx bench/cancel-latency.bench.ts`.
 *
 * One extension source (fixtures/testing/cancellable.ts: a synchronous loop that reads
 * ctx.cancelled every 1,024 steps) built to both runtimes. Measured: from the host's
 * `$/cancelRequest` (sent once the extension reported `begin` for the request, or 50 ms in) to the
 * extension's own -32800 on the transport. Baseline: a `morphir.ping` round trip on the same
 * session, in the same run. Medians of 15. Goal: ≤ 100 ms, shown as the ratio to it.
 */
import { Method } from '../host/src/protocol/index.ts';
import { openTransport, specFromPath } from '../host/src/registry/launch.ts';
import { createPeer } from '../host/src/rpc/index.ts';
import type { JsonRpcMessage } from '../host/src/transport/types.ts';
import { buildCancellable } from '../fixtures/testing/cancellable.ts';
import { Report, median, ms, progress } from './lib.ts';

const GOAL_MS = 100;
const RUNS = 15;
const report = new Report('cancel-to-answer latency (issue 35)');
const INIT = { protocolVersions: ['0.1'], host: { name: 'bench', version: '0' }, capabilities: { cancellation: true, progress: true }, permissions: {} };
const IR = { formatVersion: 3, distribution: ['Library', [['a']], [], { modules: [] }] };

progress('building the cancellable backend to wasm and as a process');
const built = await buildCancellable();

for (const runtime of ['process', 'wasm'] as const) {
  const transport = await openTransport(specFromPath(runtime === 'wasm' ? built.wasm : built.mjs, { wasm: { isolation: 'worker' } }));
  const peer = createPeer(transport, { timeoutMs: 0 });
  try {
    await peer.request(Method.Initialize, INIT);
    peer.notify(Method.Initialized, {});
    const pings: number[] = [];
    for (let i = 0; i < RUNS + 5; i++) {
      const t0 = performance.now();
      await peer.request(Method.Ping, {});
      if (i >= 5) pings.push(performance.now() - t0);
    }
    const latencies: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const id = `cancel-${i}`;
      const controller = new AbortController();
      let cancelledAt = 0;
      // At the extension's `begin`, or 50 ms after the request (a wasm guest's notifications may
      // wait in its channel while it runs): the loop is running either way.
      const cancel = (): void => {
        if (cancelledAt !== 0) return;
        cancelledAt = performance.now();
        controller.abort();
      };
      const fallback = setTimeout(cancel, 50);
      const answered = new Promise<number>((resolve) => {
        const stop = transport.onMessage((m: JsonRpcMessage) => {
          if (m.method === Method.Progress && (m.params as { requestId?: unknown; kind?: unknown }).requestId === id && (m.params as { kind?: unknown }).kind === 'begin') {
            cancel();
          } else if (m.id === id && !('method' in m)) {
            stop();
            if ((m.error as { code?: number } | undefined)?.code !== -32800) throw new Error(`${runtime}: the cancelled call answered ${JSON.stringify(m).slice(0, 200)}`);
            resolve(performance.now() - cancelledAt);
          }
        });
      });
      const call = peer.request(Method.BackendGenerate, { ir: IR, target: 'spin', options: {} }, { id, signal: controller.signal }).catch(() => undefined);
      let giveUp: Parameters<typeof clearTimeout>[0];
      const latency = await Promise.race([answered, new Promise<undefined>((resolve) => (giveUp = setTimeout(resolve, 10_000)))]);
      clearTimeout(giveUp);
      clearTimeout(fallback);
      if (latency === undefined) break;
      latencies.push(latency);
      await call;
    }
    if (latencies.length === 0) {
      report.goal({ what: `${runtime}: cancel-to-answer`, measured: 'no answer within 10 s', baseline: `${GOAL_MS} ms goal`, ratio: Number.NaN, ratioMeaning: 'cancel ms / 100 ms', direction: 'atMost', target: 1 });
      continue;
    }
    const latency = median(latencies);
    const ping = median(pings);
    report.row(`${runtime}: ping round trip (baseline)`, ms(ping));
    report.row(`${runtime}: cancel-to-answer vs ping`, ms(latency), ms(ping), `${(latency / ping).toFixed(1)}× (cancel / ping)`);
    report.goal({ what: `${runtime}: cancel-to-answer`, measured: ms(latency), baseline: `${GOAL_MS} ms goal`, ratio: latency / GOAL_MS, ratioMeaning: 'cancel ms / 100 ms', direction: 'atMost', target: 1 });
  } finally {
    await peer.close();
  }
}
report.print();
