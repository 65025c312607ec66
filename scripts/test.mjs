#!/usr/bin/env node
// Runs every colocated `*.test.ts` with uvu (TypeScript through tsx), then prints one closing
// line `N passed, N failed` that CI reads. Extra arguments narrow the run to files whose path
// matches the given pattern, e.g. `npm test -- framing`.
//
// The whole run is split into shards, one uvu process each, run side by side (MEP_TEST_JOBS, by
// default one per core, at most 2): most suites keep one core busy, so two shards nearly halve
// the time on the two-core machines CI runs on. Files go to shards by their cost in
// scripts/test-weights.json (longest first, each to the least loaded shard); before the shards
// start (whole runs only), the example extensions most suites share are built once
// (scripts/testing/prebuild.ts), so that no two shards build the same guest at once. Each shard's
// lines are printed as they come, prefixed with its number. A few files that measure the host's
// memory under load run after the shards, alone (QUIET).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { parse } from 'uvu/parse';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filter = process.argv[2];
const pattern = filter ? `(${filter}).*\\.test\\.ts$` : '\\.test\\.ts$';
const IGNORE = ['\\.cache', 'dist', '^fixtures/'];
const uvu = join(root, 'node_modules', 'uvu', 'bin.js');
const NODE_FLAGS = ['--disable-warning=ExperimentalWarning', '--import', 'tsx'];
const env = { ...process.env, FORCE_COLOR: '0' };

const { suites } = await parse(root, pattern, { ignore: IGNORE });
const files = suites.map((s) => s.name.replaceAll('\\', '/'));
if (files.length === 0) {
  console.log(`tests: no test file matches ${JSON.stringify(filter)}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

/**
 * Files that measure the host's own memory against a bound while a slow reader or many sessions
 * load it: beside another shard they measured the other shard's load too (a clean-clone CI run
 * failed both once), so a sharded run gives them the machine to themselves after the shards.
 */
const QUIET = ['host/src/cli/hostile-process.test.ts', 'host/src/serve/retained.test.ts'];

/**
 * Files that share what one test process makes once (the packed tarball, scripts/testing/packed.ts):
 * kept in one shard, so it is made once.
 */
const TOGETHER = [['scripts/package.test.ts', 'scripts/newcomer.test.ts']];

const requested = Number(process.env.MEP_TEST_JOBS);
const jobs = Math.max(1, Math.min(files.length, Number.isInteger(requested) && requested > 0 ? requested : Math.min(2, availableParallelism())));

/** Seconds each file took in a measured run; a file not listed counts as the median. */
function weights() {
  const path = join(root, 'scripts', 'test-weights.json');
  const table = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const known = Object.values(table).filter((v) => typeof v === 'number').sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)] : 1;
  return (file) => (typeof table[file] === 'number' ? table[file] : median);
}

/** `list` split into `jobs` shards of about equal cost. */
function shard(list) {
  const cost = weights();
  const shards = Array.from({ length: jobs }, () => ({ files: [], cost: 0 }));
  // Units: a file, or the files of a TOGETHER group that are in the list.
  const units = [];
  const grouped = new Set();
  for (const group of TOGETHER) {
    const present = group.filter((f) => list.includes(f));
    if (present.length > 0) units.push(present);
    for (const f of present) grouped.add(f);
  }
  for (const file of list) if (!grouped.has(file)) units.push([file]);
  const unitCost = (unit) => unit.reduce((sum, f) => sum + cost(f), 0);
  for (const unit of units.sort((a, b) => unitCost(b) - unitCost(a) || a[0].localeCompare(b[0]))) {
    const lightest = shards.reduce((a, b) => (b.cost < a.cost ? b : a));
    lightest.files.push(...unit);
    lightest.cost += unitCost(unit);
  }
  return shards.map((s) => s.files.sort());
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Seconds per test file in this run, from when uvu names a file to when it names the next. */
const timings = {};

/** Runs `args` with node, printing its lines with `prefix`; resolves with its exit and its output's tail. */
function run(args, prefix) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
    let tail = '';
    let current;
    const lap = (next) => {
      const now = performance.now();
      if (current) timings[current.file] = (timings[current.file] ?? 0) + (now - current.at) / 1000;
      current = next ? { file: next, at: now } : undefined;
    };
    const relay = (stream, out) => {
      let pending = '';
      stream.on('data', (chunk) => {
        const text = chunk.toString('utf8');
        if (stream === child.stdout) tail = (tail + text).slice(-4096);
        pending += text;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (stream === child.stdout && /^\S+\.test\.ts$/.test(line.trim())) lap(line.trim());
          out.write(`${prefix}${line}\n`);
        }
      });
      stream.on('end', () => {
        if (pending) out.write(`${prefix}${pending}\n`);
      });
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    child.on('close', (code, signal) => {
      lap(undefined);
      resolve({ code, signal, tail });
    });
  });
}

/** Counts from a uvu run's closing summary, or undefined when it ended before printing one. */
function summary({ code, signal, tail }) {
  const clean = tail.replace(/\x1b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(clean)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(clean)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(clean)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(passed)) return { ended: signal ?? `exit ${code}` };
  // uvu counts skipped tests apart from the total.
  return { passed, failed: total - passed, skipped, ok: code === 0 && total === passed };
}

const quiet = jobs > 1 ? files.filter((f) => QUIET.includes(f)) : [];
const shards = shard(files.filter((f) => !quiet.includes(f)));
// Only for the whole run: a narrowed one rarely shares a guest between its shards.
if (jobs > 1 && !filter) {
  const prebuild = await run([...NODE_FLAGS, join(root, 'scripts', 'testing', 'prebuild.ts')], '[prebuild] ');
  if (prebuild.code !== 0) console.log('[prebuild] failed; each suite builds what it needs');
}
const uvuOver = (list, prefix) => run([...NODE_FLAGS, uvu, '.', `^(${list.map(escape).join('|')})$`, ...IGNORE.flatMap((p) => ['-i', p]), '--no-color'], prefix);
const results = await Promise.all(shards.map((list, i) => (list.length > 0 ? uvuOver(list, jobs > 1 ? `[${i + 1}/${jobs}] ` : '') : undefined)));
const groups = [...shards];
if (quiet.length > 0) {
  results.push(await uvuOver(quiet, '[quiet] '));
  groups.push(quiet);
}

let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;
for (const [i, result] of results.entries()) {
  if (result === undefined) continue;
  const counts = summary(result);
  if ('ended' in counts) {
    console.log(`tests: ${i < jobs ? `shard ${i + 1} of ${jobs}` : 'the quiet group'} (${groups[i].length} files) ended (${counts.ended}) before printing its summary`);
    failed += 1;
    ok = false;
    continue;
  }
  passed += counts.passed;
  failed += counts.failed;
  skipped += counts.skipped;
  ok &&= counts.ok;
}
// Each file's seconds go to MEP_TEST_TIMINGS (default .cache/test-timings.json; copy a whole idle
// run's to scripts/test-weights.json), and a whole run names its ten slowest files.
const rounded = Object.fromEntries(Object.keys(timings).sort().map((file) => [file, Math.round(timings[file] * 10) / 10]));
try {
  const out = process.env.MEP_TEST_TIMINGS ?? join(root, '.cache', 'test-timings.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(rounded, null, 2)}\n`);
} catch (error) {
  console.log(`tests: could not keep the timings (${error instanceof Error ? error.message : String(error)})`);
}
if (!filter) {
  const slowest = Object.entries(rounded).sort((a, b) => b[1] - a[1]).slice(0, 10);
  console.log(`slowest files: ${slowest.map(([file, seconds]) => `${file} ${seconds} s`).join(', ')}`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(ok && failed === 0 ? 0 : 1);
