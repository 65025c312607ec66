/**
 * Runs flood.ts or stream-flood.ts in a process of its own (so nothing else in the process moves
 * its RSS) and returns its report. Shared by flood.test.ts, stream-flood.test.ts and hostile.ts.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FloodReport } from './flood.ts';
import type { StdinJamReport } from './stdin-jam.ts';
import type { StreamFloodReport } from './stream-flood.ts';

/** Runs `script` (next to this file) with `args` in a node process of its own; resolves with the JSON of its last line. */
function runMeasured<T>(script: string, args: string[]): Promise<T> {
  const entry = fileURLToPath(new URL(script, import.meta.url));
  const argv = ['--expose-gc', '--disable-warning=ExperimentalWarning', '--import', 'tsx', entry, ...args];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${script} failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1) as string) as T);
    });
  });
}

/** One flood of `mib` MiB through `via` in `isolation`. */
export function runFlood(options: { mib: number; via: 'notify' | 'log'; isolation: 'worker' | 'inline'; messageKib?: number }): Promise<FloodReport> {
  const args = ['--mib', String(options.mib), '--via', options.via, '--isolation', options.isolation];
  if (options.messageKib !== undefined) args.push('--message-kib', String(options.messageKib));
  return runMeasured('./flood.ts', args);
}

/** One stream of `mib` MiB of artifacts from the guest at `guest` into a sink of `sinkMibPerS`. */
export function runStreamFlood(options: { guest: string; mib: number; sinkMibPerS: number; isolation?: 'worker' | 'inline'; unbounded?: boolean }): Promise<StreamFloodReport> {
  const args = ['--guest', options.guest, '--mib', String(options.mib), '--sink-mib-s', String(options.sinkMibPerS), '--isolation', options.isolation ?? 'worker'];
  if (options.unbounded) args.push('--unbounded');
  return runMeasured('./stream-flood.ts', args);
}

/** One process extension that stops reading its stdin, held for `stallMs` before it is ended. */
export function runStdinJam(stallMs: number): Promise<StdinJamReport> {
  return runMeasured('./stdin-jam.ts', ['--stall-ms', String(stallMs)]);
}

/** `report` in one line for people. */
export function describeFlood(report: FloodReport): string {
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(0);
  return `${report.via} flood, ${report.isolation}: ${mb(report.sentBytes)} MiB in ${report.messages} messages, ${report.outcome} after ${(report.elapsedMs / 1000).toFixed(1)} s; RSS ${mb(report.baselineRss)} MB before, ${mb(report.peakRss)} MB at the peak (+${mb(report.peakRss - report.baselineRss)} MB)`;
}

/** A stream flood's `report` in one line for people. */
export function describeStreamFlood(report: StreamFloodReport): string {
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(0);
  return `${report.runtime}${report.runtime === 'wasm' ? ` (${report.isolation})` : ''} stream: ${mb(report.sinkBytes)} MiB in ${report.artifacts} artifacts taken, at most ${report.mostInHand} in hand, ${report.outcome} after ${(report.elapsedMs / 1000).toFixed(1)} s; RSS ${mb(report.baselineRss)} MB before, ${mb(report.peakRss)} MB at the peak (+${mb(report.peakRss - report.baselineRss)} MB)`;
}
