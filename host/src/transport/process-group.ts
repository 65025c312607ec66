/**
 * The process groups of process extensions (Node edge). Each extension is started as the leader
 * of a group of its own (`detached` on POSIX), so that what it starts — a grandchild holding its
 * stdio, a helper in the background — is ended with it: the host signals the whole group, never
 * only the leader.
 *
 * Every group the host started is remembered until it is seen empty, and a process 'exit' hook
 * SIGKILLs those left (synchronously, the only thing an 'exit' hook can do). That hook runs on a
 * normal exit and on process.exit(); it cannot run when the host itself is SIGKILLed or dies from
 * a signal it does not handle, so a CLI turns SIGINT/SIGTERM into {@link endAllProcessGroups}
 * and process.exit() (cli/signals.ts). A grandchild that starts a session of its own (`setsid`)
 * leaves the group and is out of reach; nothing short of a cgroup can follow it.
 */

import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Groups started and not yet seen empty, by group id (the leader's pid). */
const live = new Set<number>();
let exitHookInstalled = false;

/** Whether groups are available here (POSIX); on Windows only the child itself is signalled. */
export const PROCESS_GROUPS = process.platform !== 'win32';

/** Remembers the group of leader `pid`, so it is ended if the host exits first. */
export function trackGroup(pid: number): void {
  live.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const group of live) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Gone already, or nothing more can be done while the host is exiting.
      }
    }
  });
}

/**
 * Holds a helper the host runs for itself (git during an install), started with
 * `detached: PROCESS_GROUPS` so that it leads a group of its own, to the rules of an extension's
 * group: ended with the host's interrupt ({@link endAllProcessGroups}) and its exit hook — not
 * left running when only the host's pid is signalled — and SIGKILLed, the whole group (git's own
 * helpers too), when `signal` aborts. Forgotten once it has exited and its group is empty.
 *
 * @example
 * const git = spawn('git', args, { detached: PROCESS_GROUPS });
 * containHelper(git, deadline.signal);
 */
export function containHelper(child: ChildProcess, signal?: AbortSignal): void {
  const pid = child.pid;
  if (pid === undefined) return; // it did not start ('error' follows)
  trackGroup(pid);
  const kill = (): void => void signalGroup(pid, 'SIGKILL');
  if (signal?.aborted) kill();
  signal?.addEventListener('abort', kill, { once: true });
  child.once('exit', () => {
    signal?.removeEventListener('abort', kill);
    if (!groupAlive(pid)) live.delete(pid);
  });
}

/** Sends `signal` to every process of group `pid`; false when none is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(PROCESS_GROUPS ? -pid : pid, signal);
    return true;
  } catch (error) {
    // EPERM: a member we may not signal (it changed its uid) still counts as alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True while any process of group `pid` is alive. A zombie does not count: where PID 1 does not
 * reap orphans (some containers), a killed grandchild stays a zombie in the group for good.
 */
export function groupAlive(pid: number): boolean {
  if (!signalGroup(pid, 0)) return false;
  return process.platform !== 'linux' || liveMemberOnLinux(pid);
}

/** Whether /proc lists a process of group `pgid` that is not a zombie. */
function liveMemberOnLinux(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "(comm)": state, ppid, pgrp, …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    } catch {
      // It ended between readdir and read.
    }
  }
  return false;
}

/** How often an ending group is looked at (there is no event for processes that are not our children). */
const POLL_MS = 10;

/** Resolves true once group `pid` is empty, false after `ms`. */
export async function groupGone(pid: number, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (groupAlive(pid)) {
    if (performance.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/**
 * Ends group `pid`: SIGTERM, then SIGKILL after `termGraceMs`, then waits (at most a second)
 * until it is empty, and forgets it. Resolves when done; never rejects.
 */
export async function endGroup(pid: number, termGraceMs: number): Promise<void> {
  if (groupAlive(pid)) {
    signalGroup(pid, 'SIGTERM');
    if (!(await groupGone(pid, termGraceMs))) {
      signalGroup(pid, 'SIGKILL');
      await groupGone(pid, 1_000);
    }
  }
  if (!groupAlive(pid)) live.delete(pid);
}

/**
 * Ends every group this process started and has not seen empty: SIGTERM, then SIGKILL after
 * `graceMs`. For a host that is being interrupted (SIGINT, SIGTERM) before it exits.
 *
 * @example
 * process.once('SIGTERM', () => void endAllProcessGroups().then(() => process.exit(143)));
 */
export async function endAllProcessGroups(graceMs = 1_000): Promise<void> {
  await Promise.all([...live].map((pid) => endGroup(pid, graceMs)));
}

/** Groups started and not yet seen empty (for tests and diagnostics). */
export function liveProcessGroups(): number[] {
  return [...live];
}
