#!/usr/bin/env node
// Runs every colocated `*.test.ts` with uvu (TypeScript through tsx), then prints one closing
// line `N passed, N failed` that CI reads. Extra arguments narrow the run to files whose path
// matches the given pattern, e.g. `npm test -- framing`.
//
// The files run on workers side by side (MEP_TEST_JOBS, by default one more than the cores, at
// most 3), each a node process running uvu on one file after another (scripts/testing/test-worker.mjs):
// most suites keep one core busy, but many also wait (a provoked deadline, a slow reader, a child
// process starting, the disk), so on the two-core machines CI runs on a third worker computes
// while one of the others waits. The files are handed out by their cost in scripts/test-weights.json, longest first,
// each to the next worker that is free, so the longest start at once and the workers end
// together on short files. Before the workers start (whole runs only), the example extensions
// most suites share are built once (scripts/testing/prebuild.ts), so that no two workers build the
// same guest at once. Each worker's lines are printed as they come, prefixed with its number. A
// few files that measure the host's memory under load run after the others, alone (QUIET).
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
 * load it: beside another worker they measured the other worker's load too (a clean-clone CI run
 * failed both once), so a run on several workers gives them the machine to themselves after the others.
 */
const QUIET = ['host/src/cli/hostile-process.test.ts', 'host/src/serve/retained.test.ts'];

/**
 * Files that share what one test process makes once (the packed tarball, scripts/testing/packed.ts):
 * handed out together to one worker, so it is made once.
 */
const TOGETHER = [['scripts/package.test.ts', 'scripts/newcomer.test.ts']];

const requested = Number(process.env.MEP_TEST_JOBS);
const jobs = Math.max(1, Math.min(files.length, Number.isInteger(requested) && requested > 0 ? requested : Math.min(3, availableParallelism() + 1)));

/** Seconds each file took in a measured run; a file not listed counts as the median. */
function weights() {
  const path = join(root, 'scripts', 'test-weights.json');
  const table = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const known = Object.values(table).filter((v) => typeof v === 'number').sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)] : 1;
  return (file) => (typeof table[file] === 'number' ? table[file] : median);
}

/**
 * `list` as units (a file, or the files of a TOGETHER group that are in the list), the costliest
 * first: handed out in this order to whichever worker is free, the longest files start at once
 * and the run ends on short ones, so the workers end close together whatever each file takes.
 */
function units(list) {
  const cost = weights();
  const result = [];
  const grouped = new Set();
  for (const group of TOGETHER) {
    const present = group.filter((f) => list.includes(f));
    if (present.length > 0) result.push(present);
    for (const f of present) grouped.add(f);
  }
  for (const file of list) if (!grouped.has(file)) result.push([file]);
  const unitCost = (unit) => unit.reduce((sum, f) => sum + cost(f), 0);
  return result.sort((a, b) => unitCost(b) - unitCost(a) || a[0].localeCompare(b[0]));
}

/** Seconds per test file in this run, from its worker's start of it to its end (import included). */
const timings = {};
/** CPU seconds per test file (its worker's and the children it waited for), beside `timings`. */
const cpu = {};
let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;

/** Prints `stream`'s lines with `prefix` as they come. */
function relay(stream, out, prefix) {
  let pending = '';
  stream.on('data', (chunk) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) out.write(`${prefix}${line}\n`);
  });
  stream.on('end', () => {
    if (pending) out.write(`${prefix}${pending}\n`);
  });
}

/**
 * Runs `queue`'s units on `count` workers (scripts/testing/test-worker.mjs), each taking the next
 * unit when done with one. A worker that ends mid-unit counts a failure for each file of the unit
 * it did not finish and is replaced while units are left; units no worker is left to take count
 * as failed too.
 */
function runQueue(queue, count, label) {
  const lost = (file, why) => {
    console.log(`tests: ${file}${why}`);
    failed += 1;
    ok = false;
  };
  return new Promise((resolve) => {
    let live = 0;
    const start = (n) => {
      live++;
      const prefix = label(n);
      const child = spawn(process.execPath, [...NODE_FLAGS, join(root, 'scripts', 'testing', 'test-worker.mjs'), root], { cwd: root, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env });
      relay(child.stdout, process.stdout, prefix);
      relay(child.stderr, process.stderr, prefix);
      /** The files of the unit in hand not finished yet, and which of them started. */
      const pending = new Set();
      const started = new Set();
      child.on('message', (message) => {
        if (message.next) {
          const unit = queue.shift();
          for (const file of unit ?? []) pending.add(file);
          child.send(unit === undefined ? {} : { files: unit });
        } else if (message.started) {
          started.add(message.started);
        } else if (message.finished) {
          const { total, passed: p, skipped: s, failed: f } = message.counts;
          timings[message.finished] = message.seconds;
          if (typeof message.cpu === 'number') cpu[message.finished] = message.cpu;
          pending.delete(message.finished);
          passed += p;
          failed += Math.max(total - p, f ? 1 : 0);
          skipped += s;
          if (f) ok = false;
        }
      });
      child.on('close', (code, signal) => {
        live--;
        const end = signal ?? `exit ${code}`;
        for (const file of pending) lost(file, started.has(file) ? `: its worker ended (${end}) before the file's summary` : ` was not run: its worker ended (${end}) before it`);
        if (code !== 0 && pending.size === 0) lost('a worker', ` ended (${end}) between files`);
        // A worker that ended mid-unit is replaced; one that ended before taking any is not (it would again).
        if (queue.length > 0 && pending.size > 0) start(n);
        else if (live === 0) {
          for (const file of queue.flat()) lost(file, ' was not run: no worker was left');
          queue.length = 0;
          resolve();
        }
      });
    };
    for (let n = 1; n <= Math.min(count, Math.max(1, queue.length)); n++) start(n);
  });
}

/** Runs the script at `path` with node (tsx), printing its lines with `prefix`; resolves with its exit code. */
function runScript(path, prefix) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, path], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
    relay(child.stdout, process.stdout, prefix);
    relay(child.stderr, process.stderr, prefix);
    child.on('close', (code) => resolve(code));
  });
}

const quiet = jobs > 1 ? files.filter((f) => QUIET.includes(f)) : [];
// Only for the whole run: a narrowed one rarely shares a guest between its workers.
if (jobs > 1 && !filter && (await runScript(join(root, 'scripts', 'testing', 'prebuild.ts'), '[prebuild] ')) !== 0) {
  console.log('[prebuild] failed; each suite builds what it needs');
}
await runQueue(units(files.filter((f) => !quiet.includes(f))), jobs, (n) => (jobs > 1 ? `[${n}/${jobs}] ` : ''));
if (quiet.length > 0) await runQueue([quiet], 1, () => '[quiet] ');

// Each file's seconds go to MEP_TEST_TIMINGS (default .cache/test-timings.json; copy a whole idle
// run's to scripts/test-weights.json), and a whole run names its ten slowest files.
const round = (table) => Object.fromEntries(Object.keys(table).sort().map((file) => [file, Math.round(table[file] * 10) / 10]));
const rounded = round(timings);
try {
  const out = process.env.MEP_TEST_TIMINGS ?? join(root, '.cache', 'test-timings.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(rounded, null, 2)}\n`);
  // CPU seconds beside them (test-timings.cpu.json): a file whose CPU is far below its wall time waits.
  writeFileSync(out.replace(/(\.json)?$/, '.cpu.json'), `${JSON.stringify(round(cpu), null, 2)}\n`);
} catch (error) {
  console.log(`tests: could not keep the timings (${error instanceof Error ? error.message : String(error)})`);
}
if (!filter) {
  const slowest = Object.entries(rounded).sort((a, b) => b[1] - a[1]).slice(0, 10);
  console.log(`slowest files: ${slowest.map(([file, seconds]) => `${file} ${seconds} s`).join(', ')}`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(ok && failed === 0 ? 0 : 1);
