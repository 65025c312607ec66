/**
 * What the end of a child means for its session: nothing (a clean exit), or the error that says
 * how it ended — its stdout closed while it ran, its heap limit reached, or a crash with its last
 * log lines and the memory cap it ran under.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { formatLimit, raiseAdvice } from '../../protocol/limits.ts';
import { memoryToSuggest } from '../memory-advice.ts';
import type { StderrRecord } from '../stderr-record.ts';
import type { HeapTrace } from './v8-heap.ts';

/** What Node.js prints when a script reaches its V8 heap limit (`--max-old-space-size`). */
const V8_HEAP_EXHAUSTED = /JavaScript heap out of memory|Reached heap limit|Allocation failed - process out of memory/;

/** How a child ended. */
export interface ChildEnd {
  name: string;
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: StderrRecord;
  /** The host stopped it because its stdout ended while it still ran. */
  stoppedAtEof: boolean;
  memoryLimitBytes?: number;
  /** A Node.js script's V8 heap limit (what `--max-memory` or `limits.maxMemoryBytes` set). */
  heapLimitBytes?: number;
  /** What V8 printed of its last collections (v8-heap.ts), when it printed any. */
  heap?: HeapTrace;
  /**
   * Its address space as the host read it (proc-memory.ts): when its last request began (or at
   * the first look) and its peak at the last look: what an address-space cap is sized from.
   */
  addressSpace?: { startBytes: number; peakBytes: number };
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/**
 * The sentences after "ran out of memory at its heap limit": what V8 measured and a raise sized
 * from it the way a wasm guest's is (memory-advice.ts: the peak plus as much again as the heap grew
 * in V8's last collections), or, when V8 printed nothing, the doubling that is all there is to go on.
 */
function heapAdvice(heapLimit: number | undefined, trace: HeapTrace | undefined): string {
  if (heapLimit === undefined || trace === undefined) {
    return `${raiseAdvice('maxMemoryBytes', heapLimit)} V8 measured nothing the host could read, so that is twice the limit; the script's own peak may need more.`;
  }
  const suggested = memoryToSuggest({ limitBytes: heapLimit, startBytes: trace.earliestBytes, peakBytes: trace.peakBytes });
  return (
    `V8's last collections found ${mib(trace.peakBytes)} in use at most (from ${mib(trace.earliestBytes)}) and could free no more. ` +
    `${raiseAdvice('maxMemoryBytes', heapLimit, suggested).replace(/\.$/, '')}: room for the heap to grow as much again. ` +
    `A run stopped at its limit cannot tell what the script needs in all: if that is not enough, try it once with a large --max-memory (e.g. 4GiB).`
  );
}

/**
 * What a crash under an address-space cap (`prlimit --as`) is told: the cap, and a raise sized the
 * way a wasm guest's is (memory-advice.ts: its peak plus as much again as it took since its last
 * request began) from what the host read of its address space, or, with nothing read, the
 * doubling that is all there is to go on; and how to measure the whole peak in one run.
 */
function capAdvice(cap: number, space: ChildEnd['addressSpace']): string {
  const ran = `It ran with its address space capped at ${cap} bytes (--max-memory ${formatLimit('maxMemoryBytes', cap)})`;
  const measure = `To find what it needs in one run, run it once with a large --max-memory (e.g. 4GiB) and --verbose: the line "process memory: peak …" gives its address-space peak; set the limit a little above it.`;
  if (space === undefined) return `${ran}: if it ran out of memory, ${raiseAdvice('maxMemoryBytes', cap).replace(/^R/, 'r')} ${measure}`;
  const suggested = memoryToSuggest({ limitBytes: cap, startBytes: space.startBytes, peakBytes: space.peakBytes });
  return (
    `${ran}; its address space went from ${mib(space.startBytes)} to ${mib(space.peakBytes)} at the host's last look. ` +
    `If it ran out of memory, ${raiseAdvice('maxMemoryBytes', cap, suggested).replace(/^R/, 'r').replace(/\.$/, '')}: room to take as much again. ${measure}`
  );
}

/** The error of an unexpected end (undefined for exit code 0). */
export function exitError(end: ChildEnd): MepError | undefined {
  const { name, pid, code, signal, stderr } = end;
  if (code === 0 && signal === null) return undefined;
  if (end.stoppedAtEof) {
    return new MepError(LocalErrorCode.ExtensionCrashed, `Extension ${name} closed its standard output while still running, so it could send no more messages; it was stopped. Check that it writes its log to stderr and never closes stdout.`, {
      data: { extension: name, pid, reason: 'stdout-closed', exitCode: code, signal, stderr: stderr.lines() },
    });
  }
  const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
  if (stderr.lines().some((line) => V8_HEAP_EXHAUSTED.test(line))) {
    const heap = end.heapLimitBytes;
    const at = heap === undefined ? 'its heap limit' : `its heap limit of ${heap} bytes (--max-memory ${formatLimit('maxMemoryBytes', heap)})`;
    const trace = end.heap;
    const measured = trace === undefined ? {} : { heapPeakBytes: trace.peakBytes, heapEarliestBytes: trace.earliestBytes };
    return new MepError(LocalErrorCode.Limit, `Extension ${name} ran out of memory at ${at} and exited (${how}). ${heapAdvice(heap, trace)}`, {
      data: { extension: name, limit: 'maxMemoryBytes', ...(heap === undefined ? {} : { memoryLimitBytes: heap }), ...measured, pid, exitCode: code, signal, stderr: stderr.lines() },
    });
  }
  const last = stderr.total > 0 ? ` Its last log lines: ${JSON.stringify(stderr.last(3).join(' | '))}.` : ' It wrote nothing to stderr.';
  const cap = end.memoryLimitBytes === undefined ? '' : ` ${capAdvice(end.memoryLimitBytes, end.addressSpace)}`;
  const measured = end.memoryLimitBytes === undefined || end.addressSpace === undefined ? {} : { addressSpaceStartBytes: end.addressSpace.startBytes, addressSpacePeakBytes: end.addressSpace.peakBytes };
  return new MepError(LocalErrorCode.ExtensionCrashed, `Extension ${name} exited unexpectedly (${how}).${last} Check its log, or run it by hand to reproduce.${cap}`, {
    data: { extension: name, pid, exitCode: code, signal, stderr: stderr.lines(), ...(end.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: end.memoryLimitBytes }), ...measured },
  });
}
