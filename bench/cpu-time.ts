/**
 * CPU-time readings for benches whose wall-clock ratio swings with the shared machine's load
 * (Linux /proc; each reading is null elsewhere, and callers leave the row out).
 *   - threadCpu(): this thread's own CPU time and its wait on the run queue (schedstat, ns);
 *   - childrenCpu(): user + system time of the children this process has waited for (cutime +
 *     cstime in /proc/self/stat, clock ticks of 10 ms), so a synchronous child's CPU is the
 *     difference around its run.
 */
import { readFileSync } from 'node:fs';

const read = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** The calling thread's CPU and run-queue wait so far, in ms (a worker's own, not the main thread's). */
export function threadCpu(): { cpuMs: number; waitMs: number } | null {
  const text = read('/proc/thread-self/schedstat');
  if (text === null) return null;
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  return run === undefined || wait === undefined ? null : { cpuMs: run / 1e6, waitMs: wait / 1e6 };
}

const TICK_MS = 10; // USER_HZ is 100 on Linux's every architecture

/** User + system CPU of the waited-for children so far, in ms. */
export function childrenCpuMs(): number | null {
  const text = read('/proc/self/stat');
  if (text === null) return null;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, cutime 16 and cstime 17 (1-based), i.e. indexes 13 and 14 here.
  const cutime = Number(fields[13]);
  const cstime = Number(fields[14]);
  return Number.isFinite(cutime) && Number.isFinite(cstime) ? (cutime + cstime) * TICK_MS : null;
}
