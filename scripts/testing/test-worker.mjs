// One worker of scripts/test.mjs: a node process (with tsx) that asks its parent, over the IPC
// channel, for the next test files, runs each with uvu as uvu's own command line does (the file
// imported with its suites deferred, then run: uvu's output, its file line first), and answers
// with that file's counts and seconds. Files come one unit at a time, so the parent hands the
// longest files out first and whichever worker is free takes the next: no worker idles while
// another has a queue. Files sharing what one process makes once (a unit of several files) come
// together.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

/**
 * CPU seconds this process and its ended children used so far (Linux: /proc/self/stat's utime,
 * stime, cutime, cstime; elsewhere this process's own): a file's share beside its wall seconds
 * shows how much of it waited (sleeps, deadlines, another process) instead of computing.
 */
function cpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11..14] are utime, stime, cutime, cstime (the stat file's fields 14-17), in clock ticks (100 a second).
    return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / 100;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}

globalThis.UVU_DEFER = 1;
globalThis.UVU_QUEUE = [];
const uvu = await import('uvu');
const root = process.argv[2];

/** Runs one test file; resolves with its counts (a file that does not load counts one failure). */
async function runFile(file) {
  const counts = { total: 0, passed: 0, skipped: 0, failed: false };
  globalThis.UVU_INDEX = 0;
  globalThis.UVU_QUEUE = [[file]];
  try {
    await import(pathToFileURL(join(root, file)).href);
  } catch (error) {
    process.stdout.write(`${file}\n\n  could not load ${file}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return { total: 1, passed: 0, skipped: 0, failed: true };
  }
  // uvu's queued runs answer [errors, ran, skipped, total] each: counted as uvu's summary counts them.
  const [name, ...runs] = globalThis.UVU_QUEUE[0];
  globalThis.UVU_QUEUE = [[name, ...runs.map((run) => async () => {
    const result = await run();
    const [errors, ran, skipped, max] = result;
    counts.total += max;
    counts.passed += ran;
    counts.skipped += skipped;
    if (errors.length) counts.failed = true;
    return result;
  })]];
  process.exitCode = 0;
  await uvu.exec(false);
  if (process.exitCode) counts.failed = true;
  process.exitCode = 0;
  return counts;
}

process.on('message', async (message) => {
  if (message.files === undefined) {
    process.disconnect();
    return;
  }
  for (const file of message.files) {
    process.send({ started: file });
    const at = performance.now();
    const cpuAt = cpuSeconds();
    const counts = await runFile(file);
    process.send({ finished: file, counts, seconds: (performance.now() - at) / 1000, cpu: cpuSeconds() - cpuAt });
  }
  process.send({ next: true });
});
process.send({ next: true });
