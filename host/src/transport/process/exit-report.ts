/**
 * What the end of a child means for its session: nothing (a clean exit), or the error that says
 * how it ended — its stdout closed while it ran, its heap limit reached, or a crash with its last
 * log lines and the memory cap it ran under.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { formatLimit, raiseAdvice } from '../../protocol/limits.ts';
import type { StderrRecord } from '../stderr-record.ts';

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
    return new MepError(LocalErrorCode.Limit, `Extension ${name} ran out of memory at ${at} and exited (${how}). ${raiseAdvice('maxMemoryBytes', heap)}`, {
      data: { extension: name, limit: 'maxMemoryBytes', ...(heap === undefined ? {} : { memoryLimitBytes: heap }), pid, exitCode: code, signal, stderr: stderr.lines() },
    });
  }
  const last = stderr.total > 0 ? ` Its last log lines: ${JSON.stringify(stderr.last(3).join(' | '))}.` : ' It wrote nothing to stderr.';
  const cap = end.memoryLimitBytes === undefined ? '' : ` It ran with its memory capped at ${end.memoryLimitBytes} bytes: if it ran out of memory, ${raiseAdvice('maxMemoryBytes', end.memoryLimitBytes).replace(/^R/, 'r')}`;
  return new MepError(LocalErrorCode.ExtensionCrashed, `Extension ${name} exited unexpectedly (${how}).${last} Check its log, or run it by hand to reproduce.${cap}`, {
    data: { extension: name, pid, exitCode: code, signal, stderr: stderr.lines(), ...(end.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: end.memoryLimitBytes }) },
  });
}
