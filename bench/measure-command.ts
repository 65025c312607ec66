/**
 * Runs a command to completion and measures its wall time (spawn → exit, from this process) and
 * its peak resident set size: GNU `/usr/bin/time -v` when present (the kernel's ru_maxrss of the
 * command, which covers its waited-for children as a maximum, not a sum), else sampled from
 * /proc/<pid>/status VmHWM every 20 ms (Linux; a lower bound), else unknown.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** What {@link measureCommand} saw. */
export interface Measured {
  ms: number;
  /** Peak RSS in bytes, when it could be measured. */
  peakRssBytes?: number;
  /** How the peak was measured. */
  rssSource: 'time -v' | 'proc sampling' | 'unavailable';
  code: number | null;
  stdout: string;
  stderr: string;
}

const GNU_TIME = '/usr/bin/time';
const MAX_RSS = /Maximum resident set size \(kbytes\): (\d+)/;

function sampleHwm(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    // The process is gone (or this is not Linux): keep the last sample.
    return undefined;
  }
}

/**
 * Runs `command args` in `cwd` with stdin closed and resolves when it exits (never rejects on a
 * non-zero exit: look at `code`).
 */
export function measureCommand(command: string, args: readonly string[], cwd: string): Promise<Measured> {
  const timed = existsSync(GNU_TIME);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = timed ? spawn(GNU_TIME, ['-v', command, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(command, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sampled: number | undefined;
    const sampler = !timed && child.pid !== undefined
      ? setInterval(() => {
          const hwm = sampleHwm(child.pid as number);
          if (hwm !== undefined) sampled = Math.max(sampled ?? 0, hwm);
        }, 20)
      : undefined;
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    child.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
    child.on('close', (code) => {
      const ms = performance.now() - started;
      clearInterval(sampler);
      if (timed) {
        const kb = MAX_RSS.exec(stderr)?.[1];
        // time -v appends its report to stderr; keep the command's own lines apart from it.
        const cut = stderr.lastIndexOf('\tCommand being timed:');
        const own = cut >= 0 ? stderr.slice(0, cut) : stderr;
        const exit = /Exit status: (\d+)/.exec(stderr)?.[1];
        resolve({ ms, peakRssBytes: kb === undefined ? undefined : Number(kb) * 1024, rssSource: 'time -v', code: exit === undefined ? code : Number(exit), stdout, stderr: own });
        return;
      }
      resolve({ ms, ...(sampled === undefined ? {} : { peakRssBytes: sampled }), rssSource: sampled === undefined ? 'unavailable' : 'proc sampling', code, stdout, stderr });
    });
  });
}
