/**
 * What V8 measured of a Node.js script's heap before it ran out of memory: at its heap limit it
 * prints its last few collections ("Last few GCs") to stderr, each line with the heap in use
 * before and after, e.g. `Mark-Compact 47.5 (67.2) -> 46.4 (83.0) MB`. The figures are kept apart
 * from the stderr record, whose head and tail may leave those lines out when the script logged a
 * lot. The out-of-memory advice (memory-advice.ts) is sized from them, as a wasm guest's is from
 * its memory.
 */

/** The heap as V8's last collections saw it. */
export interface HeapTrace {
  /** The most in use before any of them: the peak the script reached. */
  peakBytes: number;
  /** The least in use after any of them: what the heap held before the growth that failed. */
  earliestBytes: number;
}

/** Watches stderr lines for V8's collection lines. */
export interface HeapTraceReader {
  see(line: string): void;
  /** The figures of the last collections seen, or undefined when V8 printed none. */
  trace(): HeapTrace | undefined;
}

// `[1234:0x55d0]   1224 ms: Mark-Compact 47.5 (67.2) -> 46.4 (83.0) MB, …` (V8's MB is 2^20 bytes).
// V8 cuts a long line short without ending it, so the next one may follow on the same line.
const GC_LINE = /\[\d+:0x[0-9a-f]+\]\s+\d+ ms: [A-Za-z-]+(?: \([a-z ]+\))? ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g;
const MiB = 1024 * 1024;
/** V8 prints two or three; a script that prints such lines itself cannot push the real ones out. */
const KEPT = 8;

/** A reader that keeps the figures of the last {@link KEPT} collection lines. */
export function createHeapTraceReader(): HeapTraceReader {
  const seen: { before: number; after: number }[] = [];
  return {
    see(line) {
      for (const m of line.matchAll(GC_LINE)) {
        seen.push({ before: Number(m[1]) * MiB, after: Number(m[2]) * MiB });
        if (seen.length > KEPT) seen.shift();
      }
    },
    trace() {
      if (seen.length === 0) return undefined;
      return { peakBytes: Math.round(Math.max(...seen.map((s) => s.before))), earliestBytes: Math.round(Math.min(...seen.map((s) => s.after))) };
    },
  };
}
