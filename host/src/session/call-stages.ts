/**
 * Where a call spent its time, from the extension's own progress: each `morphir.progress` begins a
 * stage named by its message, the call's start and the `end` progress (or the answer) bound them.
 * What happens before the first progress (the request reaching the extension, its decoding) and
 * after the last (the answer travelling back) are stages of their own. `mep --verbose` and the
 * test kit (`openExtension(..., { verbose: true })`) print it; the guest's memory, when the
 * transport reports it, comes with it.
 */
import type { ProgressParams } from '../protocol/index.ts';
import type { ProcessCap, ProcessMemory } from '../transport/process/proc-memory.ts';
import type { ProcessTransport } from '../transport/process/options.ts';
import type { Transport } from '../transport/types.ts';

/** One stage of a call. */
export interface CallStage {
  /** The progress message that began it (or its kind), or a bracketed name of the runtime's part. */
  name: string;
  ms: number;
}

/** The stages of one call (or of several, added up by name). */
export interface CallProfile {
  totalMs: number;
  stages: CallStage[];
  /** The guest's memory at the end (wasm memory never shrinks: its peak), when known. */
  guestMemoryBytes?: number;
}

/** Records the stages of the calls between {@link StageRecorder.start} and {@link StageRecorder.finish}. */
export interface StageRecorder {
  /** A call starts now (ending the one before, if it is still open). */
  start(): void;
  /** For `session.onProgress`. */
  progress(params: ProgressParams): void;
  /** The guest's memory as the transport reported it. */
  memory(bytes: number): void;
  /** The call answered now: its profile, with the stages of every call since the first start added up by name. */
  finish(): CallProfile;
}

/** The name of the stage before the extension's first progress. */
export const BEFORE_PROGRESS = '(before its first progress: the request into the extension)';
/** The name of the stage after the extension's last progress. */
export const AFTER_PROGRESS = '(after its last progress: the answer back)';

/** A recorder; `now` is the clock (default `performance.now`). */
export function createStageRecorder(now: () => number = () => performance.now()): StageRecorder {
  const totals = new Map<string, number>();
  let total = 0;
  let callStart: number | undefined;
  let current: { name: string; since: number } | undefined;
  let memory: number | undefined;
  const close = (at: number): void => {
    if (current === undefined) return;
    totals.set(current.name, (totals.get(current.name) ?? 0) + (at - current.since));
    current = undefined;
  };
  return {
    start() {
      const at = now();
      close(at);
      if (callStart !== undefined) total += at - callStart;
      callStart = at;
      current = { name: BEFORE_PROGRESS, since: at };
    },
    progress(p) {
      if (callStart === undefined) return;
      const at = now();
      close(at);
      current = { name: p.kind === 'end' ? AFTER_PROGRESS : p.message?.trim() || p.kind, since: at };
    },
    memory(bytes) {
      memory = memory === undefined ? bytes : Math.max(memory, bytes);
    },
    finish() {
      const at = now();
      close(at);
      if (callStart !== undefined) total += at - callStart;
      callStart = undefined;
      const stages = [...totals].map(([name, ms]) => ({ name, ms }));
      return { totalMs: total, stages, ...(memory === undefined ? {} : { guestMemoryBytes: memory }) };
    },
  };
}

const MiB = 1024 * 1024;

/**
 * The profile as lines for a person: each stage's time and share, then the guest memory against
 * `memoryLimitBytes` when both are known.
 */
export function profileLines(profile: CallProfile, memoryLimitBytes?: number): string[] {
  const lines = [`where the call spent its time (${profile.totalMs.toFixed(1)} ms):`];
  for (const s of profile.stages) {
    const share = profile.totalMs > 0 ? Math.round((100 * s.ms) / profile.totalMs) : 0;
    lines.push(`  ${s.ms.toFixed(1).padStart(9)} ms ${String(share).padStart(3)}%  ${s.name}`);
  }
  if (profile.guestMemoryBytes !== undefined) {
    const of = memoryLimitBytes === undefined ? '' : ` of its ${(memoryLimitBytes / MiB).toFixed(0)} MiB limit (${Math.round((100 * profile.guestMemoryBytes) / memoryLimitBytes)} %; --max-memory or extension.json limits.maxMemoryBytes raises it)`;
    lines.push(`guest memory: peak ${(profile.guestMemoryBytes / MiB).toFixed(1)} MiB${of}`);
  }
  return lines;
}

/**
 * A process extension's memory as a line for a person (`--verbose`, beside a wasm guest's
 * "guest memory: peak …"): its resident and address-space peaks, read from the extension's own
 * process, and the cap it ran under with how close it came where that is what the cap counts.
 */
function processMemoryLine(memory: ProcessMemory, cap?: ProcessCap): string {
  const of =
    cap === undefined
      ? ''
      : cap.kind === 'address space'
        ? ` (${Math.round((100 * memory.addressSpacePeakBytes) / cap.bytes)} % of its ${(cap.bytes / MiB).toFixed(0)} MiB address-space cap; --max-memory or extension.json limits.maxMemoryBytes raises it)`
        : ` (its V8 heap is capped at ${(cap.bytes / MiB).toFixed(0)} MiB; --max-memory or extension.json limits.maxMemoryBytes raises it)`;
  return `process memory: peak ${(memory.residentPeakBytes / MiB).toFixed(1)} MiB resident, ${(memory.addressSpacePeakBytes / MiB).toFixed(1)} MiB address space${of}`;
}

/**
 * The "process memory: peak …" line of a process extension's transport (`--verbose` of mep and
 * of the test kit): what the transport reads from the extension now, with the cap the transport
 * was given; undefined for another transport or where nothing can be read.
 */
export function processMemoryReport(transport: Transport): string | undefined {
  const extension = transport as Partial<Pick<ProcessTransport, 'memory' | 'memoryCap'>>;
  const memory = extension.memory?.();
  return memory === undefined ? undefined : processMemoryLine(memory, extension.memoryCap);
}
