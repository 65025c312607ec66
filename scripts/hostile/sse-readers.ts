/**
 * The long form of `host/src/serve/http-sse-soak.test.ts`: `mep serve --http` (its own process,
 * default limits: 128 MiB of unread answers and events across the server) with `clients` SSE
 * clients at once, half never reading after the first bytes and half reading in drips (pauses
 * of up to 5 ms, in an order and lengths the seed chooses), each asking for a stream of 32
 * artifacts of 1 MiB. Reports the server's peak RSS and what each kind of client got: every
 * reading client must get its whole stream, and the server's RSS must stay within the bound plus
 * its own 300 MB.
 *
 * Usage: node --import tsx scripts/hostile/sse-readers.ts [clients] [seed]
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSeededRandom } from '../../fixtures/testing/random.ts';
import { startServedHttp } from './served-http.ts';
import { startSseReader, type ReaderOutcome, type ReaderRole } from '../../host/src/serve/testing/sse-readers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const MB = 1024 * 1024;

/** What a run of {@link runSseReaders} saw. */
export interface SseReadersReport {
  peakRss: number;
  outcomes: ReaderOutcome[];
  /** The server answered /health after the run. */
  alive: boolean;
}

export async function runSseReaders(options: { clients: number; seed?: number }): Promise<SseReadersReport> {
  const server = await startServedHttp(join(root, 'bin/mep.mjs'), ['--extension', join(root, 'fixtures/extensions/artifact-stream.mjs'), '--call-timeout', '10m']);
  const { port } = server;
  try {
    const random = createSeededRandom(options.seed ?? 0);
    const roles: ReaderRole[] = Array.from({ length: options.clients }, (_, i) => (i % 2 === 0 ? 'stall' : 'drip'));
    for (let i = roles.length - 1; i > 0; i--) {
      const j = random.int(i + 1);
      [roles[i], roles[j]] = [roles[j]!, roles[i]!];
    }
    const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count: 32, kib: 1024 } } });
    const readers = roles.map((role) => startSseReader({ port, route: '', body, role, random, maxPauseMs: 5 }));
    const drips = await Promise.all(readers.filter((r) => r.role === 'drip').map((r) => Promise.race([r.done, new Promise((resolve) => setTimeout(resolve, 300_000)).then(() => r.settleWithin(0))])));
    const stalls = await Promise.all(readers.filter((r) => r.role === 'stall').map((r) => r.settleWithin(30_000)));
    return { peakRss: server.peakRss(), outcomes: [...drips, ...stalls], alive: server.exitCode() === null && (await server.health()) };
  } finally {
    await server.stop();
  }
}

/** True when every reading client got its whole stream and the server stayed alive within 128 MiB + 300 MB. */
export const sseReadersOk = (r: SseReadersReport): boolean => r.alive && r.outcomes.filter((o) => o.role === 'drip').every((o) => o.whole && o.answer) && r.peakRss < 128 * MB + 300 * MB;

/** One line for a report. */
export function describeSseReaders(r: SseReadersReport): string {
  const count = (role: ReaderRole, what: (o: ReaderOutcome) => boolean): number => r.outcomes.filter((o) => o.role === role && what(o)).length;
  return `${r.alive ? 'alive' : 'dead'}; readers ${count('drip', (o) => o.whole)}/${count('drip', () => true)} whole; stalled ${count('stall', (o) => o.cut)} dropped, ${count('stall', (o) => o.whole)} whole once read; peak RSS ${(r.peakRss / MB).toFixed(0)} MB (limit ${128 + 300} MB)`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = await runSseReaders({ clients: Number(process.argv[2] ?? 24), seed: Number(process.argv[3] ?? 0) });
  console.log(`${sseReadersOk(report) ? 'pass' : 'FAIL'}  ${describeSseReaders(report)}`);
}
