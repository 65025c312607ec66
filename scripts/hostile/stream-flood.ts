/**
 * One streamed-artifact flood, measured in a process of its own: a guest (artifact-flood-guest.ts,
 * built for wasm or as a process script) streams `--mib` MiB of artifacts of `--kib` KiB into a
 * slow sink that takes `--sink-mib-s` MiB a second, one artifact at a time, holding each until
 * it is "written". The host's RSS after a GC before the call and its peak during it are
 * reported in one JSON line (see {@link StreamFloodReport}). `--unbounded` lifts the host's
 * stream window, for comparison: the guest then outruns the sink and the host keeps the lot.
 *
 * Usage: node --expose-gc --import tsx scripts/hostile/stream-flood.ts --guest PATH [--isolation worker|inline]
 *          [--mib 256] [--kib 256] [--sink-mib-s 64] [--unbounded]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';
import { isMepError } from '../../host/src/protocol/errors.ts';

/** What one stream flood measured. */
export interface StreamFloodReport {
  runtime: 'wasm' | 'process';
  isolation: 'worker' | 'inline';
  /** Bytes of artifact content the sink took, and the artifacts. */
  sinkBytes: number;
  artifacts: number;
  /** Most artifacts the sink held at once (taken, not yet written). */
  mostInHand: number;
  /** 'answered', or the error code. */
  outcome: string;
  baselineRss: number;
  peakRss: number;
  elapsedMs: number;
}

const MIB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    guest: { type: 'string' },
    isolation: { type: 'string', default: 'worker' },
    mib: { type: 'string', default: '256' },
    kib: { type: 'string', default: '256' },
    'sink-mib-s': { type: 'string', default: '64' },
    unbounded: { type: 'boolean', default: false },
  },
});
const isolation = values.isolation === 'inline' ? 'inline' : 'worker';
const rate = Number(values['sink-mib-s']) * MIB;
const spec = specFromPath(values.guest as string, { limits: { callTimeoutMs: 600_000 }, wasm: { isolation } });
const transport = await openTransport(spec);
const session = createSession({ transport, requestTimeoutMs: 600_000 });
await session.start();

// The slow sink: one artifact at a time, each taking its size at `rate`, and held until then.
let chain: Promise<void> = Promise.resolve();
let inHand = 0;
let mostInHand = 0;
let sinkBytes = 0;
let artifacts = 0;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const onArtifact = (artifact: { content: string }): Promise<void> => {
  inHand++;
  mostInHand = Math.max(mostInHand, inHand);
  chain = chain.then(async () => {
    await sleep((artifact.content.length / rate) * 1000);
    sinkBytes += artifact.content.length;
    artifacts++;
    inHand--;
  });
  return chain;
};

const gc = (globalThis as { gc?: () => void }).gc;
for (let round = 0; round < 3; round++) gc?.();
const baselineRss = process.memoryUsage.rss();
let peakRss = baselineRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 5);
const started = performance.now();
let outcome = 'answered';
try {
  await session.generate(
    { ir: JSON.parse(readFileSync(new URL('../../fixtures/mep/ir/business-terms.json', import.meta.url), 'utf8')), target: 'flood', options: { mib: Number(values.mib), kib: Number(values.kib) } },
    { onArtifact, ...(values.unbounded ? { streamWindow: { maxBytes: Infinity, maxArtifacts: Infinity } } : {}) },
  );
} catch (error) {
  outcome = isMepError(error) ? String(error.code) : String(error);
}
const elapsedMs = performance.now() - started;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage.rss());
await session.close();
const report: StreamFloodReport = { runtime: spec.runtime, isolation, sinkBytes, artifacts, mostInHand, outcome, baselineRss, peakRss, elapsedMs };
process.stdout.write(`${JSON.stringify(report)}\n`);
