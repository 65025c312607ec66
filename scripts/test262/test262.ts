/**
 * `npm run test262 [-- --sample N --seed S --filter TEXT]`: the test262 differential (./differential.ts)
 * over the whole snapshot or a seeded sample. Prints the counts per engine, the documented harness
 * limits and every difference; writes the report to .cache/test262/report.json. Exits 1 when the
 * edited and unedited engines disagree or the sandbox fails a test outside the documented limits.
 * `--exclude TEXT` leaves out the paths containing TEXT. `--shard I/N` runs every Nth file from the Ith (shards run side by side, each writing
 * report-I-of-N.json); `--merge N` prints the sum of the N shards' reports.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ENGINES, runDifferential, sampleTests, type Difference, type DifferentialReport } from './differential.ts';
import { listTests, loadSuite } from './suite.ts';
import { NOT_RUN, SANDBOX_LIMITS } from './known.ts';
import { TEST262_CACHE } from './native.ts';

const { values } = parseArgs({ options: { sample: { type: 'string' }, seed: { type: 'string', default: '262' }, filter: { type: 'string', default: '' }, exclude: { type: 'string' }, shard: { type: 'string' }, merge: { type: 'string' } } });
const started = Date.now();
let report: DifferentialReport;
if (values.merge !== undefined) {
  const n = Number(values.merge);
  const parts = Array.from({ length: n }, (_, i) => JSON.parse(readFileSync(join(TEST262_CACHE, `report-${i}-of-${n}.json`), 'utf8')) as DifferentialReport);
  report = parts.reduce((a, b) => {
    const add = (x: Record<string, number>, y: Record<string, number>): Record<string, number> => {
      const out = { ...x };
      for (const [k, v] of Object.entries(y)) out[k] = (out[k] ?? 0) + v;
      return out;
    };
    const counts = Object.fromEntries(ENGINES.map((e) => [e, { runs: a.counts[e].runs + b.counts[e].runs, passed: a.counts[e].passed + b.counts[e].passed, failed: a.counts[e].failed + b.counts[e].failed }])) as DifferentialReport['counts'];
    return {
      files: a.files + b.files,
      confSkipped: a.confSkipped + b.confSkipped,
      notRun: add(a.notRun, b.notRun),
      sandboxLimited: add(a.sandboxLimited, b.sandboxLimited),
      counts,
      editedVsUnedited: [...a.editedVsUnedited, ...b.editedVsUnedited],
      sandboxOnlyFailures: [...a.sandboxOnlyFailures, ...b.sandboxOnlyFailures],
      sandboxOnlyPasses: [...a.sandboxOnlyPasses, ...b.sandboxOnlyPasses],
    };
  });
} else {
  let paths = values.sample !== undefined ? sampleTests(Number(values.sample), Number(values.seed), values.filter) : values.filter ? sampleTests(Infinity, 0, values.filter) : undefined;
  if (values.exclude !== undefined) paths = (paths ?? listTests(loadSuite().root)).filter((p) => !p.includes(values.exclude!));
  let name = 'report.json';
  if (values.shard !== undefined) {
    const [i, n] = values.shard.split('/').map(Number) as [number, number];
    paths = (paths ?? listTests(loadSuite().root)).filter((_, k) => k % n === i);
    name = `report-${i}-of-${n}.json`;
  }
  let last = 0;
  report = await runDifferential({
    paths,
    onProgress: (done, total) => {
      if (Date.now() - last < 10_000 && done !== total) return;
      last = Date.now();
      process.stderr.write(`test262: ${done}/${total} files, ${Math.round((Date.now() - started) / 1000)} s\n`);
    },
  });
  mkdirSync(TEST262_CACHE, { recursive: true });
  writeFileSync(join(TEST262_CACHE, name), JSON.stringify(report, null, 2));
}

const pct = (a: number, b: number): string => `${((100 * a) / Math.max(b, 1)).toFixed(2)} %`;
const lines = [`test262: ${report.files} files, ${report.confSkipped} not run by quickjs-ng's conf (${Math.round((Date.now() - started) / 1000)} s)`];
for (const e of ENGINES) {
  const c = report.counts[e];
  lines.push(`  ${e.padEnd(9)} ${c.runs} runs, ${c.passed} passed, ${c.failed} failed (${pct(c.passed, c.runs)})`);
}
for (const l of NOT_RUN) if (report.notRun[l.id]) lines.push(`  not run anywhere (${l.id}): ${report.notRun[l.id]} — ${l.reason}`);
for (const l of SANDBOX_LIMITS) if (report.sandboxLimited[l.id]) lines.push(`  native only (${l.id}): ${report.sandboxLimited[l.id]} — ${l.reason}`);
const show = (title: string, diffs: Difference[]): void => {
  lines.push(`${title}: ${diffs.length}`);
  for (const d of diffs.slice(0, 200)) lines.push(`  ${d.path} (${d.mode}): ${Object.entries(d.failures).map(([e, why]) => `${e} ${why === undefined ? 'passes' : `fails: ${why}`}`).join('; ')}`);
};
show('edited vs unedited differences', report.editedVsUnedited);
show('sandbox-only failures', report.sandboxOnlyFailures);
show('sandbox-only passes', report.sandboxOnlyPasses);
console.log(lines.join('\n'));
process.exitCode = report.editedVsUnedited.length + report.sandboxOnlyFailures.length > 0 ? 1 : 0;
