/**
 * CLI start-up bench (issue 13): `node --import tsx bench/cli.bench.ts`.
 *
 * The compiled `mep` a user installs (dist/, rebuilt first with `npm run build` when a source is
 * newer), each figure a median of fresh processes against `node -e 0` spawned the same way in
 * the same run:
 *   1. `mep --help`: goal ≤ 2× a bare Node start;
 *   2. `mep build` of an unchanged extension (wasm cached, type check recorded clean): its
 *      start-up (process start to the first build step, from `mep build --verbose`), goal ≤ 4×,
 *      and the absolute target of 300 ms printed beside it; the whole command, no goal.
 * The checkout's own `node bin/mep.mjs --help` (tsx on the sources) is shown for comparison.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_CACHE, Report, ROOT, compiledMep, median, ms, progress, x } from './lib.ts';

const report = new Report('cli (issue 13)');
const BIN = compiledMep();
const RUNS = 9;

/** Milliseconds of each of `RUNS` fresh processes (after one unmeasured), and their stderr. */
function spawnTimes(args: string[], cwd: string): { times: number[]; stderr: string[] } {
  const times: number[] = [];
  const stderr: string[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    const elapsed = performance.now() - started;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i > 0) {
      times.push(elapsed);
      stderr.push(r.stderr);
    }
  }
  return { times, stderr };
}

const dir = join(BENCH_CACHE, 'cli');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
progress('scaffolding and building an extension once (fills the wasm cache and the clean type-check record)');
execFileSync(process.execPath, [BIN, 'init', 'hello'], { cwd: dir, stdio: 'ignore' });
const buildArgs = [BIN, 'build', 'hello/src/extension.ts', '-o', 'hello.wasm', '--verbose'];
execFileSync(process.execPath, buildArgs, { cwd: dir, stdio: 'ignore' });

progress(`timing ${RUNS} fresh processes of each`);
const node = median(spawnTimes(['-e', '0'], dir).times);
const help = median(spawnTimes([BIN, '--help'], dir).times);
const checkoutHelp = median(spawnTimes([join(ROOT, 'bin', 'mep.mjs'), '--help'], ROOT).times);
const build = spawnTimes(buildArgs, dir);
const startups = build.stderr.map((e) => Number(/start-up (\d+) ms/.exec(e)?.[1] ?? NaN));
if (startups.some(Number.isNaN)) throw new Error(`mep build --verbose printed no start-up time: ${build.stderr[0]}`);
const startup = median(startups);
const whole = median(build.times);

report.row('node -e 0 (baseline)', ms(node));
report.goal({ what: 'mep --help (compiled)', measured: ms(help), baseline: ms(node), ratio: help / node, ratioMeaning: 'help / node', direction: 'atMost', target: 2 });
report.goal({
  what: 'mep build, cached: start-up to first work',
  measured: ms(startup),
  baseline: ms(node),
  ratio: startup / node,
  ratioMeaning: 'start-up / node',
  direction: 'atMost',
  target: 4,
});
report.row('mep build, cached: whole command', ms(whole), ms(node), x(whole / node));
report.row('node bin/mep.mjs --help in a checkout (tsx, sources)', ms(checkoutHelp), ms(node), x(checkoutHelp / node));
report.note(`absolute target: mep build start-up ≤ 300 ms — measured ${ms(startup)}, ${startup <= 300 ? 'met' : 'missed'} on this machine`);
report.note('the compiled CLI is run as dist/cli/bin.js, the bundle the installed bin/mep.mjs imports');
report.print();
rmSync(dir, { recursive: true, force: true });
