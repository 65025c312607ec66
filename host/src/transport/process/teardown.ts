/**
 * The end of a child: graceful (stdin closed, then `killGraceMs`), then its whole group —
 * SIGTERM, SIGKILL after `termGraceMs` — and then, once `beforeRelease` resolves (what it wrote
 * is read), its pipes let go of, so a grandchild holding them keeps nothing waiting. Runs once, however many times it is asked.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { longDelay } from '../long-timer.ts';
import { endGroup, signalGroup } from '../process-group.ts';

/** The teardown of one child. */
export interface Teardown {
  /** True once the child (the group leader) exited. */
  readonly exited: boolean;
  /** True once a stop began. */
  readonly stopping: boolean;
  /** Records the leader's exit (from its 'exit' or spawn 'error' event). */
  markExited(): void;
  /** Ends the child and its group; with `endInputFirst`, gives it `killGraceMs` after closing its stdin. */
  stop(endInputFirst: boolean): Promise<void>;
}

/** The teardown of `child`, with its grace periods. */
export function createTeardown(child: ChildProcessWithoutNullStreams, graces: { killGraceMs: number; termGraceMs: number; beforeRelease?: () => Promise<void> }): Teardown {
  let exited = false;
  let stopping: Promise<void> | undefined;
  let resolveExited!: () => void;
  const exitedPromise = new Promise<void>((resolve) => (resolveExited = resolve));

  function waitExit(ms: number): Promise<boolean> {
    if (exited) return Promise.resolve(true);
    const timeout = longDelay(ms, () => false);
    return Promise.race([exitedPromise.then(() => true), timeout.promise]).finally(timeout.cancel);
  }

  /** Lets go of the pipes: a grandchild holding them (out of the group, or not yet ended) keeps nothing waiting. */
  function releasePipes(): void {
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
  }

  return {
    get exited() {
      return exited;
    },
    get stopping() {
      return stopping !== undefined;
    },
    markExited() {
      exited = true;
      resolveExited();
    },
    stop(endInputFirst) {
      stopping ??= (async () => {
        if (endInputFirst) {
          child.stdin.end();
          await waitExit(graces.killGraceMs);
        }
        const pid = child.pid;
        if (pid === undefined) return;
        // The leader, and whatever it left in its group: SIGTERM, then SIGKILL.
        await endGroup(pid, graces.termGraceMs);
        if (!exited) {
          signalGroup(pid, 'SIGKILL');
          await exitedPromise;
        }
        // What it wrote before its end is read first (stderr-reader.ts settle), then let go of.
        await graces.beforeRelease?.();
        releasePipes();
      })();
      return stopping;
    },
  };
}
