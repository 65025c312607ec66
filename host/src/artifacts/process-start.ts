/**
 * When a process started, where the system says so (Linux: /proc), so that a publication
 * journal left by a dead process is not mistaken for a live one when its pid was given to a new
 * process since: after a reboot, or in a container, where every run may get the same pid.
 */
import { readFile } from 'node:fs/promises';

// The kernel reports start times in USER_HZ ticks, 100 a second on every Linux ABI.
const TICKS_PER_SECOND = 100;

/**
 * The start time of process `pid` in milliseconds since the epoch (to about a second, the
 * precision of the boot time), or undefined where it cannot be read (not Linux, no such
 * process, no /proc).
 */
export async function processStartedAt(pid: number): Promise<number | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const [own, system] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile('/proc/stat', 'utf8')]);
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields count from the last ")".
    const fields = own.slice(own.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]); // field 22, starttime; fields[0] is field 3
    const boot = /^btime (\d+)$/m.exec(system);
    if (boot === null || !Number.isFinite(ticks)) return undefined;
    return Number(boot[1]) * 1000 + (ticks / TICKS_PER_SECOND) * 1000;
  } catch {
    // Gone, or /proc is not mounted: unknown.
    return undefined;
  }
}
