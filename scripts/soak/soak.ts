/**
 * `npm run soak`: serves a host on a Unix socket in a child process and drives it with many
 * concurrent clients (ordinary and hostile sessions, see scenarios.ts) for a bounded count and
 * time, then prints the checkpoint table, the counts and the memory verdict, and writes
 * .cache/soak/soak.svg. Exit 1 when a call went unanswered or untyped, or memory after GC grew
 * more than `--max-growth` over the checkpoint after `--baseline` sessions.
 *
 *   npm run soak -- [--sessions 10000] [--concurrency 20] [--every 500] [--minutes 60]
 *                   [--baseline 100] [--max-growth 0.10]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../../examples/testing/built.ts';
import { formatReport, growth, plotSvg } from './report.ts';
import { runSoak } from './run-soak.ts';
import { startServedHost } from './server-handle.ts';
import { prepareSoakGuests, SOAK_MIX } from './soak-guests.ts';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '20' },
    every: { type: 'string' },
    minutes: { type: 'string', default: '60' },
    baseline: { type: 'string', default: '100' },
    'max-growth': { type: 'string', default: '0.10' },
  },
});
const sessions = Number(values.sessions);
const every = Number(values.every ?? Math.max(100, Math.round(sessions / 20 / 100) * 100));
const baseline = Number(values.baseline);
const maxGrowth = Number(values['max-growth']);

const guests = await prepareSoakGuests();
const host = await startServedHost();
try {
  console.log(`soak: ${sessions} sessions, ${values.concurrency} clients, checkpoint every ${every}, at most ${values.minutes} min; server pid ${host.pid} on ${host.path}`);
  const first = await host.measure();
  console.log(`before any session: RSS ${(first.rss / 1048576).toFixed(1)} MB, heap ${(first.heapUsed / 1048576).toFixed(1)} MB (after GC)`);
  const result = await runSoak({
    host,
    guests,
    sessions,
    concurrency: Number(values.concurrency),
    checkpointEvery: every,
    mix: SOAK_MIX,
    maxMs: Number(values.minutes) * 60_000,
    onCheckpoint: (c) => console.log(`  … ${c.sessions} sessions, ${(c.elapsedMs / 1000).toFixed(0)} s, RSS ${(c.sample.rss / 1048576).toFixed(1)} MB`),
  });
  console.log('');
  console.log(formatReport(result, baseline));
  const svg = join(REPO_ROOT, '.cache', 'soak', 'soak.svg');
  writeFileSync(svg, plotSvg(result.checkpoints, `mep serve soak: ${result.tally.served} sessions, memory after forced GC`));
  console.log(`plot: ${svg}`);
  const g = growth(result.checkpoints, baseline);
  const failures = [
    ...(result.tally.unanswered > 0 ? [`${result.tally.unanswered} calls unanswered`] : []),
    ...(result.tally.untyped > 0 ? [`${result.tally.untyped} untyped errors`] : []),
    ...(g !== undefined && g.rss > maxGrowth ? [`RSS grew ${(g.rss * 100).toFixed(1)} %`] : []),
    ...(g !== undefined && g.heap > maxGrowth ? [`heap grew ${(g.heap * 100).toFixed(1)} %`] : []),
  ];
  console.log(failures.length === 0 ? 'soak: PASS' : `soak: FAIL (${failures.join(', ')})`);
  process.exitCode = failures.length === 0 ? 0 : 1;
} finally {
  await host.close();
}
