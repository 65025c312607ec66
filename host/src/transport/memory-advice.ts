/**
 * What a wasm call that ran out of memory is told to do, from what the runtime measured: the
 * guest's memory when the call began and at the failure. A wasm memory never shrinks, so the size
 * at the failure is the peak the call reached; how much more it would have needed is not known,
 * so the figure leaves room for the call to take as much again as it had taken, and the advice
 * says how to measure the real peak in one run.
 */
import { MAX_MEMORY_BYTES_CEILING, raiseAdvice } from '../protocol/limits.ts';

/** A wasm call's memory, measured by the host. */
export interface CallMemory {
  /** The limit the call ran under. */
  limitBytes: number;
  /** The guest's memory when the call began. */
  startBytes: number;
  /** The guest's memory at the failure: its peak. */
  peakBytes: number;
}

const MiB = 1024 * 1024;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;

/**
 * The memory to suggest for a call that failed at its limit: what it reached (at least the limit:
 * an allocation too big for the room left fails below it) plus as much again as the call took.
 */
export function memoryToSuggest(m: CallMemory): number {
  const took = Math.max(0, m.peakBytes - m.startBytes);
  return Math.min(MAX_MEMORY_BYTES_CEILING, Math.max(m.peakBytes, m.limitBytes) + Math.max(took, 1));
}

/**
 * The sentences after "ran out of memory at its limit of N bytes (…)": what the call measured,
 * the raise (option and extension.json field) sized from it, and how to find the peak in one run.
 */
export function outOfMemoryAdvice(m: CallMemory): string {
  const took = `This call took its memory from ${mib(m.startBytes)} to ${mib(m.peakBytes)}`;
  const at = m.peakBytes >= m.limitBytes * 0.99 ? 'all it may have' : `${mib(m.limitBytes - m.peakBytes)} short of the limit, too little for its next allocation`;
  const raise = raiseAdvice('maxMemoryBytes', m.limitBytes, memoryToSuggest(m)).replace(/\.$/, '');
  return (
    `${took} (${at}) and needed more. ${raise}: room for the call to take as much again. ` +
    `To find the figure in one run, run it once with --max-memory 1GiB --verbose: the line "guest memory: peak …" is what the call needs; set the limit a little above it.`
  );
}
