import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { childrenCpuMs, threadCpu } from './cpu-time.ts';

const Cpu = suite('bench/cpu-time :: the CPU readings the quickjs-elm bench reports per pair');

/** Spins until this thread has used `ms` more of its own CPU (bounded by 60 s of wall). */
function spinCpu(ms: number): void {
  const start = threadCpu()!.cpuMs;
  const cap = performance.now() + 60_000;
  while (threadCpu()!.cpuMs - start < ms && performance.now() < cap);
}

Cpu('threadCpu: the calling thread\'s own CPU (tests run on a worker: reading the main thread\'s never advances)', () => {
  const before = threadCpu();
  if (before === null) return; // no /proc: the bench leaves its rows out
  const proc0 = process.cpuUsage();
  spinCpu(100);
  const after = threadCpu();
  const proc = process.cpuUsage(proc0);
  assert.ok(after !== null);
  assert.ok(after.cpuMs - before.cpuMs >= 100, `thread CPU ${after.cpuMs - before.cpuMs} ms`);
  assert.ok((proc.user + proc.system) / 1000 >= 90, 'the process counts the thread\'s CPU too');
  assert.ok(after.waitMs >= before.waitMs);
});

const CHILD_SPIN = 'const e = process.cpuUsage(); while (process.cpuUsage(e).user < 300_000);';

Cpu('childrenCpuMs: a waited-for child using 300 ms of CPU adds at least 250 ms, and more than a sleeping one', () => {
  const c0 = childrenCpuMs();
  if (c0 === null) return;
  execFileSync(process.execPath, ['-e', CHILD_SPIN]);
  const c1 = childrenCpuMs();
  assert.ok(c1 !== null);
  assert.ok(c1 - c0 >= 250, `child CPU ${c1 - c0} ms`);
  execFileSync(process.execPath, ['-e', 'setTimeout(() => {}, 300)']);
  const c2 = childrenCpuMs();
  assert.ok(c2 !== null);
  assert.ok(c2 - c1 < c1 - c0, `sleeping child ${c2 - c1} ms, spinning ${c1 - c0} ms`);
});

Cpu.run();
