/**
 * `npm run bench`: runs every `bench/*.bench.ts` one after another, each in its own Node process
 * (so one bench's heap, JIT and worker threads never skew the next), prints everything they
 * print, then one summary of every goal: met or missed, with its ratio.
 *
 *   npm run bench                 # all benches
 *   npm run bench -- runtime avro # only benches whose file name contains one of the words
 *
 * Goals are ratios against baselines measured in the same run (bench/lib.ts `Report.goal`), so
 * a noisy machine moves both sides together. Missing a goal never fails the run; a bench that
 * crashes does (exit code 1).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOALS_FILE_ENV, ROOT, goalText, x, type Goal } from './lib.ts';

/** Cheap benches first, so a failure shows early; anything else found runs after these. */
const PREFERRED = ['cli', 'engine', 'wasm-transport', 'abi', 'runtime', 'avro', 'avro-scale'];

const filters = process.argv.slice(2);
const found = readdirSync(join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length));
const order = (name: string): number => (PREFERRED.includes(name) ? PREFERRED.indexOf(name) : PREFERRED.length);
const benches = found
  .filter((name) => filters.length === 0 || filters.some((w) => name.includes(w)))
  .sort((a, b) => order(a) - order(b) || a.localeCompare(b));
if (benches.length === 0) {
  console.error(`No bench matches ${filters.join(', ')}; available: ${found.join(', ')}.`);
  process.exit(2);
}

interface Outcome {
  name: string;
  code: number | null;
  seconds: number;
  goals: Goal[];
  /** Lines mentioning a target from a bench that records no goals (e.g. absolute targets). */
  targetLines: string[];
}

const dir = mkdtempSync(join(tmpdir(), 'mep-bench-'));
const outcomes: Outcome[] = [];
const started = performance.now();
const startedAt = new Date();
const loadAtStart = loadavg()[0] as number;
try {
  for (const name of benches) {
    const goalsFile = join(dir, `${name}.jsonl`);
    console.log(`\n################ bench/${name}.bench.ts ################`);
    const t0 = performance.now();
    const lines: string[] = [];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', join('bench', `${name}.bench.ts`)], {
        cwd: ROOT,
        // Also quiets the Extism SDK's WASI ExperimentalWarning in benches' own child processes.
        env: { ...process.env, [GOALS_FILE_ENV]: goalsFile, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --disable-warning=ExperimentalWarning`.trim() },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let pending = '';
      child.stdout.on('data', (chunk: Buffer) => {
        process.stdout.write(chunk);
        pending += chunk.toString();
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        lines.push(...parts);
      });
      child.on('close', (exitCode) => {
        if (pending) lines.push(pending);
        resolve(exitCode);
      });
      child.on('error', (error) => {
        console.error(`could not start bench/${name}.bench.ts: ${error.message}`);
        resolve(null);
      });
    });
    let goals: Goal[] = [];
    try {
      goals = readFileSync(goalsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Goal);
    } catch {
      // No goals recorded (a bench that does not use bench/lib.ts, or one that crashed early).
    }
    const targetLines = goals.length === 0 ? lines.filter((l) => /\btarget\b|\bgoal\b/i.test(l) && !/^\s*case\s+measured\b/.test(l)).map((l) => l.trim().replace(/\s{2,}/g, '  ')) : [];
    outcomes.push({ name, code, seconds: (performance.now() - t0) / 1000, goals, targetLines });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Summary.
type Cells = [string, string, string, string, string, string];
const rows: Cells[] = [];
let met = 0;
let missed = 0;
for (const o of outcomes) {
  for (const g of o.goals) {
    g.met ? met++ : missed++;
    const ratio = Number.isFinite(g.ratio) ? `${x(g.ratio)} ${g.ratioMeaning}` : 'n/a';
    rows.push([g.met ? 'MET' : 'MISSED', o.name, g.what, `${g.measured} vs ${g.baseline}`, ratio, goalText(g.direction, g.target)]);
  }
  for (const line of o.targetLines) rows.push(['(own)', o.name, line, '', '', 'absolute target, judged by that bench']);
  if (o.code !== 0) rows.push(['CRASHED', o.name, `exit ${o.code ?? 'signal'}: its goals are missing above`, '', '', '']);
}
const header: Cells = ['status', 'bench', 'goal', 'measured vs baseline', 'ratio', 'target'];
const widths = header.map((h, c) => Math.min(c === 3 ? 60 : 72, Math.max(h.length, ...rows.map((r) => r[c].length))));
const fit = (s: string, w: number): string => (s.length > w ? `${s.slice(0, w - 1)}…` : s.padEnd(w));
const line = (cells: string[]): string => cells.map((c, i) => fit(c, widths[i] as number)).join('  ').trimEnd();
const total = (performance.now() - started) / 1000;
console.log(`\n================ summary: ${met} goal(s) met, ${missed} missed (${total.toFixed(0)} s in all) ================`);
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));
console.log(`\nper bench: ${outcomes.map((o) => `${o.name} ${o.seconds.toFixed(0)} s${o.code === 0 ? '' : ` (exit ${o.code})`}`).join(', ')}`);
console.log('Goals are ratios to baselines measured in the same run; a missed goal is reported, not failed.');

// The same summary as a Markdown table, whole cells, for the README's performance section: one
// run's figures, dated, with the machine's load at both ends.
const utc = (d: Date): string => d.toISOString().slice(0, 16).replace('T', ' ');
const cell = (s: string): string => s.replace(/\|/g, '\\|');
const markdown = [
  `${met} goals met, ${missed} missed: \`npm run bench${filters.length ? ` -- ${filters.join(' ')}` : ''}\`, ${utc(startedAt)}–${utc(new Date()).slice(11)} UTC, ${total.toFixed(0)} s, Node ${process.version}, load average ${loadAtStart.toFixed(1)} → ${(loadavg()[0] as number).toFixed(1)}.`,
  '',
  '| | bench | goal | measured vs baseline | ratio | target |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  '',
].join('\n');
const summaryDir = join(ROOT, '.cache', 'bench');
mkdirSync(summaryDir, { recursive: true });
writeFileSync(join(summaryDir, 'summary.md'), markdown);
console.log(`The summary as Markdown: ${join('.cache', 'bench', 'summary.md')}`);
process.exitCode = outcomes.some((o) => o.code !== 0) ? 1 : 0;
