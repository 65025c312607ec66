/**
 * The processes a process extension started, as /proc shows them (Linux): for checking that none
 * is left once it ended (MEP 0.1, Conformance 7). Elsewhere nothing is listed.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** State and parent of every process /proc lists, by pid. */
function processTable(): Map<number, { state: string; ppid: number }> {
  const table = new Map<number, { state: string; ppid: number }>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "(comm)": state, ppid, …
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { state: state as string, ppid: Number(ppid) });
    } catch {
      // It ended between readdir and read.
    }
  }
  return table;
}

/** Every running descendant of `pid` (children, their children, …), `pid` not included. */
export function descendantsOf(pid: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const parents = [pid];
  while (parents.length > 0) {
    const parent = parents.pop() as number;
    for (const [child, { ppid, state }] of table) {
      if (ppid !== parent || found.includes(child)) continue;
      if (state !== 'Z') found.push(child);
      parents.push(child);
    }
  }
  return found;
}

/** The processes of `pids` still running (a zombie does not count), after at most `ms` of waiting for them to end. */
export async function stillRunning(pids: readonly number[], ms: number): Promise<number[]> {
  const until = performance.now() + ms;
  for (;;) {
    const table = processTable();
    const left = pids.filter((pid) => table.has(pid) && table.get(pid)?.state !== 'Z');
    if (left.length === 0 || performance.now() >= until) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
