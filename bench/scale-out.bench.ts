/**
 * Scale-out: `node --import tsx bench/scale-out.bench.ts`.
 *
 * N `mep serve --http` replicas (1 up to the cores) behind nginx configured with
 * deploy/nginx.conf, driven by wrk with deploy/generate.lua (one generate per POST): requests per
 * second and p99 latency per replica count, each as a ratio to one replica in the same run. The
 * goal: 2 replicas give ≥ 1.3× the throughput of one (on a machine with 2 free cores; shared
 * machines show less). Skipped, with a note, without nginx or wrk (scripts/setup.sh installs them).
 */
import { availableParallelism } from 'node:os';
import { haveTools, runWrk, startReplicaSet, type WrkResult } from '../deploy/testing/replicas.ts';
import { recordGoal } from './lib.ts';

const SECONDS = 8;
const CONNECTIONS = 16;

if (!haveTools()) {
  console.log('scale-out: skipped (nginx and wrk are not installed; run scripts/setup.sh)');
  process.exit(0);
}
const counts = Array.from({ length: Math.max(1, Math.min(availableParallelism(), 8)) }, (_, i) => i + 1);
const results: { replicas: number; result: WrkResult }[] = [];
for (const replicas of counts) {
  const set = await startReplicaSet(replicas);
  try {
    await runWrk(set.url, 2, CONNECTIONS); // warm: sessions opened, JIT settled
    results.push({ replicas, result: await runWrk(set.url, SECONDS, CONNECTIONS) });
  } finally {
    await set.close();
  }
}
const base = results[0]?.result as WrkResult;
const rps = (r: WrkResult): number => r.requests / r.seconds;
console.log(`replicas  requests/s  × one   p50 ms   p99 ms   errors   (wrk ${CONNECTIONS} connections, ${SECONDS} s, nginx least_conn)`);
for (const { replicas, result } of results) {
  const errors = result.non2xx + result.socket_errors + result.bad_answers;
  console.log(`${String(replicas).padStart(8)}  ${rps(result).toFixed(0).padStart(10)}  ${(rps(result) / rps(base)).toFixed(2).padStart(5)}  ${(result.p50_us / 1000).toFixed(1).padStart(7)}  ${(result.p99_us / 1000).toFixed(1).padStart(7)}  ${String(errors).padStart(7)}`);
}
const two = results.find((r) => r.replicas === 2);
if (two) {
  recordGoal('scale-out', {
    what: 'generate throughput through nginx, 2 replicas vs 1 (wrk, same run)',
    measured: `${rps(two.result).toFixed(0)} req/s (p99 ${(two.result.p99_us / 1000).toFixed(1)} ms)`,
    baseline: `${rps(base).toFixed(0)} req/s (p99 ${(base.p99_us / 1000).toFixed(1)} ms) with 1 replica`,
    ratio: rps(two.result) / rps(base),
    ratioMeaning: 'req/s 2 replicas / 1 replica',
    direction: 'atLeast',
    target: 1.3,
  });
}
