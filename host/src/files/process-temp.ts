/**
 * Temporary directories that belong to one `mep` process: named `<prefix><pid>-XXXXXX` in the
 * temporary directory, removed when the process exits (a handled SIGINT or SIGTERM exits through
 * `process.exit`, which runs the hook), and removed by the next `mep` that makes one of the same
 * kind when a killed process (SIGKILL, a crash) left them: a directory of this user whose pid is
 * no longer running. Node edge.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether process `pid` runs (EPERM: it does, as another user's). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the `<prefix><pid>-…` directories in `root` of this user's processes that are gone. */
function sweepStale(root: string, prefix: string): void {
  const uid = process.getuid?.();
  const owner = new RegExp(`^${prefix}(\\d+)-`);
  for (const name of readdirSync(root)) {
    const pid = owner.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processRunning(Number(pid))) continue;
    try {
      const info = lstatSync(join(root, name));
      if (info.isDirectory() && (uid === undefined || info.uid === uid)) rmSync(join(root, name), { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
}

/** A directory of this process; see the module comment. */
export interface ProcessTemp {
  readonly dir: string;
  /** Removes it now (and forgets the exit hook). Idempotent. */
  remove(): Promise<void>;
}

/**
 * Makes a fresh `<prefix><pid>-XXXXXX` directory (mode 0700) after sweeping the ones dead
 * processes left; `prefix` names the kind (`mep-install-`, `mep-run-`), letters and dashes only.
 *
 * @example
 * const scratch = makeProcessTemp('mep-install-');
 * try { … } finally { await scratch.remove(); }
 */
export function makeProcessTemp(prefix: string): ProcessTemp {
  const root = tmpdir();
  try {
    sweepStale(root, prefix);
  } catch {
    // Only housekeeping: an unreadable temp directory fails at mkdtemp below with its reason.
  }
  const dir = mkdtempSync(join(root, `${prefix}${process.pid}-`));
  const atExit = (): void => rmSync(dir, { recursive: true, force: true });
  process.on('exit', atExit);
  let removed: Promise<void> | undefined;
  return {
    dir,
    remove() {
      removed ??= (async () => {
        await rm(dir, { recursive: true, force: true });
        process.off('exit', atExit);
      })();
      return removed;
    },
  };
}
