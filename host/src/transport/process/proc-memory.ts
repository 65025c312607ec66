/**
 * A process extension's memory, as Linux counts it in /proc/<pid>/status: its resident peak
 * (VmHWM), its address space now (VmSize) and at its peak (VmPeak, what `prlimit --as` caps).
 * The kernel keeps both peaks itself, so a read at any time gives the peak so far exactly.
 *
 * The pid the host spawned is the extension's only when it runs as it is: contained
 * (containment.ts), it is the launcher's, and the extension is the launcher's one child (`env`
 * exec'ing the command, and `prlimit` exec'ing the executable, keep that pid), found in
 * /proc/<launcher>/task/<launcher>/children. Elsewhere than Linux nothing is measured.
 */
import { readFileSync } from 'node:fs';

/** What /proc says of a process's memory, in bytes. */
export interface ProcessMemory {
  /** The most it has held in RAM (VmHWM). */
  residentPeakBytes: number;
  /** Its address space now (VmSize). */
  addressSpaceBytes: number;
  /** The largest its address space has been (VmPeak): what an address-space cap counts. */
  addressSpacePeakBytes: number;
}

/** The memory cap a process extension runs under: its address space (`prlimit --as`) or a Node.js script's V8 heap. */
export type ProcessCap = { kind: 'address space' | 'V8 heap'; bytes: number };

const KIB = 1024;

/** The figures of a /proc/<pid>/status text; undefined when it has none (an exited process, a kernel thread). */
export function parseProcStatus(text: string): ProcessMemory | undefined {
  const field = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
    return m ? Number(m[1]) * KIB : undefined;
  };
  const residentPeakBytes = field('VmHWM');
  const addressSpaceBytes = field('VmSize');
  const addressSpacePeakBytes = field('VmPeak');
  if (residentPeakBytes === undefined || addressSpaceBytes === undefined || addressSpacePeakBytes === undefined) return undefined;
  return { residentPeakBytes, addressSpaceBytes, addressSpacePeakBytes };
}

/** The memory of process `pid` now, or undefined (not Linux, gone, no figures). */
export function readProcessMemory(pid: number): ProcessMemory | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The one child of the launcher `pid` (the extension), or undefined while there is none. */
export function launchedChild(pid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.length === 1 && Number.isInteger(children[0]) ? children[0] : undefined;
  } catch {
    return undefined;
  }
}

/** Reads of one extension's memory, and the figures of the last read (kept after it exited). */
export interface MemoryProbe {
  /** Reads the figures now (undefined when nothing can be read); the last good read is kept. */
  read(): ProcessMemory | undefined;
  /** The first good read (the extension's start, or near it). */
  readonly first: ProcessMemory | undefined;
  /** The last good read. */
  readonly last: ProcessMemory | undefined;
}

/**
 * A probe of the extension spawned as `pid`: itself, or, `wrapped` (through the launcher), the
 * launcher's child once it exists. `stopped()` says the child exited: no read after that (its
 * pid may be another process's by then).
 */
export function createMemoryProbe(pid: number | undefined, wrapped: boolean, stopped: () => boolean): MemoryProbe {
  let target = wrapped ? undefined : pid;
  let first: ProcessMemory | undefined;
  let last: ProcessMemory | undefined;
  return {
    read() {
      if (pid === undefined || stopped()) return undefined;
      target ??= launchedChild(pid);
      const now = target === undefined ? undefined : readProcessMemory(target);
      if (now !== undefined && !stopped()) {
        first ??= now;
        last = now;
      }
      return now;
    },
    get first() {
      return first;
    },
    get last() {
      return last;
    },
  };
}
