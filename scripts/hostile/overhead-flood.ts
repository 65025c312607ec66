/**
 * Long form of the frame-overhead cases of `host/src/transport/process/hostile.test.ts`: a process
 * extension that writes what carries no message, at the default notification budget (64 MiB):
 * ndjson blank lines without end while no call runs, or 8 KB of extra headers on each small
 * notification during a call. Each must end with ERR_LIMIT `maxNotificationBytes`; the host's
 * CPU and wall time to get there are reported (before: blank lines were read for good, and the
 * headers rode free, ~7 GB read before the budget was spent).
 */
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createPeer } from '../../host/src/rpc/peer.ts';
import { createProcessTransport } from '../../host/src/transport/process/index.ts';
import { isMepError, type MepError } from '../../host/src/protocol/errors.ts';

const padded = fileURLToPath(new URL('../../fixtures/extensions/padded-headers.mjs', import.meta.url));
const IR = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };
const BLANK_FLOOD = "const b = Buffer.alloc(65536, 10); const w = () => { while (process.stdout.write(b)); process.stdout.once('drain', w); }; w();";

/** What one run found. */
export interface OverheadFloodReport {
  kind: 'blank lines' | 'padded headers';
  outcome: string;
  wallMs: number;
  hostCpuMs: number;
  peakRss: number;
}

/** Runs one flood against a process transport with default limits; gives up after `ms`. */
export async function runOverheadFlood(kind: OverheadFloodReport['kind'], ms = 180_000): Promise<OverheadFloodReport> {
  const transport = createProcessTransport(
    kind === 'blank lines'
      ? { name: 'blank-lines', command: process.execPath, args: ['-e', BLANK_FLOOD], cwd: tmpdir(), framing: 'ndjson', killGraceMs: 200, termGraceMs: 200 }
      : { name: 'padded-headers', command: process.execPath, args: [padded], cwd: tmpdir(), killGraceMs: 200, termGraceMs: 200 },
  );
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = new Promise<MepError | undefined>((resolve) => transport.onClose(resolve));
  try {
    if (kind === 'padded headers') {
      const peer = createPeer(transport, { timeoutMs: ms });
      await peer.request('morphir.initialize', { protocolVersions: ['0.1'] });
      peer.notify('morphir.initialized', {});
      void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { notifications: 2_000_000, padBytes: 8_000 } }).catch(() => undefined);
    }
    const reason = await Promise.race([closed, new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), ms)))]);
    const used = process.cpuUsage(cpu);
    const outcome = reason === 'still open' ? reason : isMepError(reason) ? `${reason.code} ${String((reason.data as { limit?: unknown } | undefined)?.limit)}` : 'closed';
    return { kind, outcome, wallMs: performance.now() - started, hostCpuMs: (used.user + used.system) / 1000, peakRss };
  } finally {
    clearTimeout(timer);
    clearInterval(sampler);
    await transport.close();
  }
}

/** One line for the report. */
export function describeOverheadFlood(report: OverheadFloodReport): string {
  return `${report.outcome} after ${(report.wallMs / 1000).toFixed(1)} s, host CPU ${(report.hostCpuMs / 1000).toFixed(1)} s`;
}
