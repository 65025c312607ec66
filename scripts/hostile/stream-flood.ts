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
 *          [--target T --input IR.json --option k=v…]   (another backend's stream instead)
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';
import { isMepError } from '../../host/src/protocol/errors.ts';
import { measureRss, type MeasuredRun } from './measure-rss.ts';

/** What one stream flood measured. */
export interface StreamFloodReport extends MeasuredRun {
  runtime: 'wasm' | 'process' | 'http';
  isolation: 'worker' | 'inline';
  /** Bytes of artifact content the sink took, and the artifacts. */
  sinkBytes: number;
  artifacts: number;
  /** Most artifacts the sink held at once (taken, not yet written). */
  mostInHand: number;
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
    target: { type: 'string', default: 'flood' },
    input: { type: 'string' },
    option: { type: 'string', multiple: true },
  },
});
// Another backend's stream (e.g. the Avro example's default layout): its target, input and options.
const input = values.input ?? fileURLToPath(new URL('../../fixtures/mep/ir/business-terms.json', import.meta.url));
const backendOptions: Record<string, unknown> = values.option
  ? Object.fromEntries(values.option.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]))
  : { mib: Number(values.mib), kib: Number(values.kib) };
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

const measured = await measureRss(async () => {
  try {
    await session.generate(
      { ir: JSON.parse(readFileSync(input, 'utf8')), target: values.target as string, options: backendOptions },
      { onArtifact, ...(values.unbounded ? { streamWindow: { maxBytes: Infinity, maxArtifacts: Infinity } } : {}) },
    );
    return 'answered';
  } catch (error) {
    return isMepError(error) ? String(error.code) : String(error);
  }
});
await session.close();
const report: StreamFloodReport = { runtime: spec.runtime, isolation, sinkBytes, artifacts, mostInHand, ...measured };
process.stdout.write(`${JSON.stringify(report)}\n`);
