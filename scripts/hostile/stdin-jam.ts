/**
 * A process extension that stops reading its stdin and sends the host requests whose answers
 * (64 KiB each) pile up for it, measured in a process of its own: the host's RSS before and at
 * the peak, and how the session ended (ERR_LIMIT maxStdinBacklogBytes once it is held past
 * `--stall-ms`). Prints one JSON line.
 *
 * Usage: node --import tsx scripts/hostile/stdin-jam.ts [--stall-ms 10000]
 */
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPeer } from '../../host/src/rpc/peer.ts';
import { createProcessTransport } from '../../host/src/transport/process.ts';
import type { MepError } from '../../host/src/protocol/errors.ts';

/** What one run measured. */
export interface StdinJamReport {
  outcome: string;
  limit: unknown;
  baselineRss: number;
  peakRss: number;
  elapsedMs: number;
}

const { values } = parseArgs({ options: { 'stall-ms': { type: 'string', default: '10000' } } });
const fixture = fileURLToPath(new URL('../../fixtures/extensions/stdin-jam.mjs', import.meta.url));
const IR = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };

(globalThis as { gc?: () => void }).gc?.();
const baselineRss = process.memoryUsage.rss();
let peakRss = baselineRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
const transport = createProcessTransport({ name: 'stdin-jam', command: process.execPath, args: [fixture], cwd: tmpdir(), stdinStallMs: Number(values['stall-ms']), killGraceMs: 200, termGraceMs: 200 });
const peer = createPeer(transport, { timeoutMs: 0 });
const closed = new Promise<MepError | undefined>((resolve) => transport.onClose(resolve));
const started = performance.now();
await peer.request('morphir.initialize', { protocolVersions: ['0.1'] });
void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: {} }).catch(() => undefined);
const reason = await closed;
const elapsedMs = performance.now() - started;
clearInterval(sampler);
peer.close();
await transport.close();
const report: StdinJamReport = { outcome: String(reason?.code ?? 'closed'), limit: (reason?.data as { limit?: unknown } | undefined)?.limit, baselineRss, peakRss, elapsedMs };
console.log(JSON.stringify(report));
