#!/usr/bin/env node
// Runs every colocated `*.test.ts` with uvu (TypeScript through tsx) in one process, then
// prints one closing line `N passed, N failed` that CI reads. Extra arguments narrow the run
// to files whose path matches the given pattern, e.g. `npm test -- framing`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filter = process.argv[2];
const pattern = filter ? `(${filter}).*\\.test\\.ts$` : '\\.test\\.ts$';
const uvu = join(root, 'node_modules', 'uvu', 'bin.js');
const child = spawn(
  process.execPath,
  ['--disable-warning=ExperimentalWarning', '--import', 'tsx', uvu, '.', pattern, '-i', '\\.cache', '-i', 'dist', '-i', '^fixtures/', '--no-color'],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, FORCE_COLOR: '0' } },
);
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString('utf8')).slice(-4096);
});
child.on('close', (code, signal) => {
  const clean = tail.replace(/\x1b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(clean)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(clean)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(clean)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(passed)) {
    console.log(`tests: the runner ended (${signal ?? `exit ${code}`}) before printing its summary`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  // uvu counts skipped tests apart from the total.
  const failed = total - passed;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
