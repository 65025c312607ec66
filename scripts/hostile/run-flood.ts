/**
 * Runs flood.ts in a process of its own (so nothing else in the process moves its RSS) and
 * returns its report. Shared by flood.test.ts and hostile.ts.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FloodReport } from './flood.ts';

const entry = fileURLToPath(new URL('./flood.ts', import.meta.url));

/** One flood of `mib` MiB through `via` in `isolation`. */
export function runFlood(options: { mib: number; via: 'notify' | 'log'; isolation: 'worker' | 'inline'; messageKib?: number }): Promise<FloodReport> {
  const args = ['--expose-gc', '--disable-warning=ExperimentalWarning', '--import', 'tsx', entry, '--mib', String(options.mib), '--via', options.via, '--isolation', options.isolation];
  if (options.messageKib !== undefined) args.push('--message-kib', String(options.messageKib));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`flood.ts failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1) as string) as FloodReport);
    });
  });
}

/** `report` in one line for people. */
export function describeFlood(report: FloodReport): string {
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(0);
  return `${report.via} flood, ${report.isolation}: ${mb(report.sentBytes)} MiB in ${report.messages} messages, ${report.outcome} after ${(report.elapsedMs / 1000).toFixed(1)} s; RSS ${mb(report.baselineRss)} MB before, ${mb(report.peakRss)} MB at the peak (+${mb(report.peakRss - report.baselineRss)} MB)`;
}
