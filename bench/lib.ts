/**
 * Shared bench helpers: medians over repeated runs after warm-up, one table per bench (measured
 * figure, baseline beside it, ratio, goal), and goal records that `bench/run.ts` collects for its
 * summary. Nothing here asserts on time: a goal is reported as met or missed, never thrown.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where benches keep their builds and inputs (gitignored). */
export const BENCH_CACHE = join(ROOT, '.cache', 'bench');
/** Environment variable naming the JSON-lines file `bench/run.ts` reads goals from. */
export const GOALS_FILE_ENV = 'MEP_BENCH_GOALS';

/** Median of `xs` (the upper one for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of nothing');
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times; returns the milliseconds of each run. */
export async function sample(runs: number, warmup: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  let i = 0;
  for (let w = 0; w < warmup; w++) await fn(i++);
  const out: number[] = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    await fn(i++);
    out.push(performance.now() - started);
  }
  return out;
}

/**
 * How long {@link perCallUs} calls before it measures (ms). V8 runs a module's wasm in its baseline
 * compiler until the optimizing one has compiled the hot functions in the background, and the JS
 * on both sides of a worker likewise: a session's ping took 90–140 µs in its first 1,000 calls and
 * settled after about 6,000–10,000 calls (0.3–0.5 s), so one round of 500 measured the compilers,
 * not the call, and a worker, measured in smaller batches than inline, more so.
 */
export const WARMUP_MS = 1500;

/** The per-call figures of {@link perCallUs}: the steady median, and the first batch's. */
export interface PerCall {
  /** Median µs per call over the measured rounds, after the warm-up. */
  us: number;
  /** µs per call of the first batch, while V8 still compiles (what a fresh session pays first). */
  firstUs: number;
}

/**
 * Median over `rounds` rounds of `batch` sequential calls, in µs per call, after calling for at
 * least `warmupMs` (whole batches, at least one) unmeasured.
 */
export async function perCall(batch: number, rounds: number, call: (i: number) => Promise<unknown>, warmupMs = WARMUP_MS): Promise<PerCall> {
  let i = 0;
  const round = async (): Promise<number> => {
    const started = performance.now();
    for (let n = 0; n < batch; n++) await call(i++);
    return ((performance.now() - started) * 1000) / batch;
  };
  const warming = performance.now();
  const firstUs = await round();
  while (performance.now() - warming < warmupMs) await round();
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) samples.push(await round());
  return { us: median(samples), firstUs };
}

/** {@link perCall}'s steady median alone, in µs per call. */
export async function perCallUs(batch: number, rounds: number, call: (i: number) => Promise<unknown>, warmupMs = WARMUP_MS): Promise<number> {
  return (await perCall(batch, rounds, call, warmupMs)).us;
}

/**
 * Median spawn → exit time (ms) of a bare `node -e 0` over `runs` processes after one unmeasured,
 * with no NODE_OPTIONS: the baseline of goals on work a fresh `node` process does or that scales
 * with how fast this machine runs Node right now.
 */
export function nodeStartMs(runs: number, cwd = ROOT): number {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    const r = spawnSync(process.execPath, ['-e', '0'], { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
    if (r.status !== 0) throw new Error(`node -e 0 exited ${r.status}`);
    if (i > 0) times.push(performance.now() - started);
  }
  return median(times);
}

/** valgrind, where the callgrind benches run it. */
export const VALGRIND = '/usr/bin/valgrind';

/** Ends a callgrind bench on a machine without valgrind: a note in its report, not a failure. */
export function exitWithoutValgrind(report: Report): void {
  if (existsSync(VALGRIND)) return;
  report.note('valgrind is not installed (apt-get install valgrind): nothing counted');
  report.print();
  process.exit(0);
}

/** Formats milliseconds with a sensible unit. */
export function ms(value: number): string {
  if (value < 1) return `${(value * 1000).toFixed(1)} µs`;
  if (value < 100) return `${value.toFixed(2)} ms`;
  if (value < 10_000) return `${value.toFixed(0)} ms`;
  return `${(value / 1000).toFixed(1)} s`;
}

/** Formats a ratio. */
export function x(ratio: number): string {
  return `${ratio >= 100 ? ratio.toFixed(0) : ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

/** One goal: `ratio` must be `≥ target` (`atLeast`) or `≤ target` (`atMost`). */
export interface Goal {
  bench: string;
  /** What is compared, e.g. "session ping, wasm inline vs raw Extism echo". */
  what: string;
  measured: string;
  baseline: string;
  ratio: number;
  /** How the ratio is defined, e.g. "ping / raw" or "process ms / wasm ms". */
  ratioMeaning: string;
  direction: 'atLeast' | 'atMost';
  target: number;
  met: boolean;
  /** A short note (e.g. why a figure is missing). */
  note?: string;
}

/** Renders the goal text of a ratio goal, e.g. "≤ 3×". */
export function goalText(direction: Goal['direction'], target: number): string {
  return `${direction === 'atLeast' ? '≥' : '≤'} ${target}×`;
}

/**
 * Judges a goal and records it for `bench/run.ts` (when run from there); prints nothing. For
 * benches with their own table; {@link Report.goal} calls it too.
 */
export function recordGoal(bench: string, g: Omit<Goal, 'bench' | 'met'>): Goal {
  const met = Number.isFinite(g.ratio) && (g.direction === 'atLeast' ? g.ratio >= g.target : g.ratio <= g.target);
  const goal: Goal = { ...g, bench, met };
  const file = process.env[GOALS_FILE_ENV];
  if (file) appendFileSync(file, `${JSON.stringify(goal)}\n`);
  return goal;
}

interface Row {
  what: string;
  measured: string;
  baseline: string;
  ratio: string;
  goal: string;
}

/** A bench's report: rows printed as one table, goals recorded for the summary. */
export class Report {
  private readonly rows: Row[] = [];
  readonly goals: Goal[] = [];
  private readonly notes: string[] = [];

  constructor(readonly bench: string) {}

  /** A row without a goal (context, decomposition or a baseline itself). */
  row(what: string, measured: string, baseline = '', ratio = '', goal = ''): void {
    this.rows.push({ what, measured, baseline, ratio, goal });
  }

  /** A row with a goal on `ratio`; recorded for `bench/run.ts`. */
  goal(g: Omit<Goal, 'bench' | 'met'>): Goal {
    const goal = recordGoal(this.bench, g);
    const met = goal.met;
    this.goals.push(goal);
    this.rows.push({
      what: g.what,
      measured: g.measured,
      baseline: g.baseline,
      ratio: Number.isFinite(g.ratio) ? `${x(g.ratio)} (${g.ratioMeaning})` : 'n/a',
      goal: `${goalText(g.direction, g.target)} ${met ? 'MET' : 'MISSED'}`,
    });
    return goal;
  }

  /** A line printed under the table. */
  note(text: string): void {
    this.notes.push(text);
  }

  /** Prints the table (and notes). */
  print(): void {
    const header: Row = { what: 'case', measured: 'measured', baseline: 'baseline', ratio: 'ratio', goal: 'goal' };
    const keys: (keyof Row)[] = ['what', 'measured', 'baseline', 'ratio', 'goal'];
    const all = [header, ...this.rows];
    const widths = keys.map((k) => Math.max(...all.map((r) => r[k].length)));
    const line = (r: Row): string => keys.map((k, i) => r[k].padEnd(widths[i] as number)).join('  ').trimEnd();
    console.log(`\n== ${this.bench} (Node ${process.version}, ${new Date().toISOString()}) ==`);
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const r of this.rows) console.log(line(r));
    for (const n of this.notes) console.log(`  * ${n}`);
  }
}

/** Prints a progress line on stderr (kept out of the tables). */
export function progress(text: string): void {
  process.stderr.write(`  … ${text}\n`);
}

/**
 * A valid Morphir IR v3 distribution of about `bytes` bytes of JSON: one module of record
 * aliases with 8 fields each (object-dense, like real IR). Deterministic.
 */
export function irOfSize(bytes: number): Record<string, unknown> {
  const sdkInt = ['Reference', {}, [[['morphir'], ['s', 'd', 'k']], [['basics']], ['int']], []];
  const sdkString = ['Reference', {}, [[['morphir'], ['s', 'd', 'k']], [['string']], ['string']], []];
  const types: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const fields = Array.from({ length: 8 }, (_, f) => ({ name: ['field', String(f), 'αβ'], tpe: f % 2 ? sdkString : sdkInt }));
    const type = [['entity', String(i)], { access: 'Public', value: { doc: `Entity ${i}.`, value: ['TypeAliasDefinition', [], ['Record', {}, fields]] } }];
    size += JSON.stringify(type).length + 1;
    types.push(type);
  }
  return { formatVersion: 3, distribution: ['Library', [['bench'], ['payload']], [], { modules: [[[['payload']], { access: 'Public', value: { types, values: [], doc: 'Bench payload.' } }]] }] };
}

/**
 * Builds a guest entry to both runtimes under .cache/bench/ (wasm through the engine pipeline,
 * cached by content hash; process as one Node file). The type check is skipped: the repository's
 * own `tsc` covers bench sources, and it costs seconds per build.
 */
export async function buildBoth(entry: string, name: string): Promise<{ wasm: string; process: string }> {
  const { buildGuest } = await import('../build/guest/index.ts');
  const wasm = await buildGuest({ entry, outFile: join(BENCH_CACHE, `${name}.wasm`), runtime: 'wasm', typecheck: false });
  const proc = await buildGuest({ entry, outFile: join(BENCH_CACHE, `${name}.mjs`), runtime: 'process', typecheck: false });
  return { wasm: wasm.outFile, process: proc.outFile };
}

/** Newest modification time of the TypeScript sources under `dir`. */
function newestSource(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return Math.max(newest, newestSource(path));
    return e.name.endsWith('.ts') ? Math.max(newest, statSync(path).mtimeMs) : newest;
  }, 0);
}

/**
 * The compiled `mep` a user installs (dist/cli/bin.js, the bundle the package's bin runs),
 * rebuilt first with `npm run build` when it is missing or older than a source. Benches that time
 * `mep` as a command use it, so they measure the product rather than tsx compiling sources.
 */
export function compiledMep(): string {
  const bin = join(ROOT, 'dist', 'cli', 'bin.js');
  const newest = Math.max(...['host/src', 'guest-pdk/src', 'build', 'embed'].map((d) => newestSource(join(ROOT, d))));
  if (!existsSync(bin) || statSync(bin).mtimeMs < newest) {
    progress('dist/ is missing or older than the sources: npm run build');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return bin;
}

/** Environment variable that makes a bench a child of {@link inFreshProcesses}: it measures once and prints its figures. */
export const FRESH_CHILD_ENV = 'MEP_BENCH_FRESH_CHILD';


/** The medians of {@link inFreshProcesses}, each with its spread across the processes. */
export interface FreshFigures {
  median: Record<string, number>;
  /** Every process's figure of each key, in run order. */
  runs: Record<string, number[]>;
}

/**
 * Runs `script` (a bench) `count` times, each in a fresh Node process with {@link FRESH_CHILD_ENV}
 * set, one after another, and takes the median of each figure its children print. A figure that
 * depends on how two threads of one process happen to be scheduled (a cross-thread ping) varies
 * more between processes than within one: one process measures its luck, several the runtime.
 */
export function inFreshProcesses(script: string, count: number, figures = (run: Record<string, number>) => run): FreshFigures {
  const runs: Record<string, number[]> = {};
  for (let i = 0; i < count; i++) {
    progress(`fresh process ${i + 1} of ${count}`);
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, [FRESH_CHILD_ENV]: '1' }, maxBuffer: 1 << 24 });
    const last = out.trim().split('\n').at(-1) ?? '';
    for (const [key, value] of Object.entries(figures(JSON.parse(last) as Record<string, number>))) (runs[key] ??= []).push(value);
  }
  const median_: Record<string, number> = {};
  for (const [key, values] of Object.entries(runs)) median_[key] = median(values);
  return { median: median_, runs };
}

/**
 * In a child of {@link inFreshProcesses} (the bench `script` run again): runs `measure`, prints its
 * figures as the last line and exits. Otherwise: the figures of `count` such children, with each
 * of `ratios` (name: [numerator, denominator]) taken within each process before the medians.
 */
export async function measureInFreshProcesses(
  script: string,
  count: number,
  measure: () => Promise<Record<string, number>>,
  ratios: Record<string, [string, string]>,
): Promise<FreshFigures> {
  if (process.env[FRESH_CHILD_ENV] === '1') {
    console.log(JSON.stringify(await measure()));
    process.exit(0);
  }
  return inFreshProcesses(script, count, (run) => {
    const derived = { ...run };
    for (const [name, [over, under]] of Object.entries(ratios)) derived[name] = (run[over] as number) / (run[under] as number);
    return derived;
  });
}

/** How many fresh processes a ping bench measures in: BENCH_PING_PROCESSES, else `fallback`. */
export const pingProcesses = (fallback: number): number => Math.max(1, Number(process.env.BENCH_PING_PROCESSES ?? fallback) || fallback);

/** The spread of `values` in words: "min–max over n processes". */
export function spread(values: readonly number[], format: (value: number) => string): string {
  return `${format(Math.min(...values))}–${format(Math.max(...values))} over ${values.length} processes`;
}
