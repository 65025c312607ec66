/**
 * Temporary directories that belong to one `mep` process: named `<prefix><pid>-XXXXXX` in a folder
 * of the user's own in the temporary directory (`mep-<uid>`, mode 0700: see {@link processTempRoot}), removed when the process exits (a handled SIGINT or SIGTERM exits through
 * `process.exit`, which runs the hook), and removed by the next `mep` that makes one of the same
 * kind when a killed process (SIGKILL, a crash) left them: a directory of this user whose pid is
 * no longer running (at most `SWEEP_NAMES` names looked at a sweep). What a package left in it cannot stop its removal: folders it made unwritable
 * are made writable first, and paths deeper than PATH_MAX are moved up, shorter, before their
 * contents are removed. A removal that still fails (a file of another user) is one warning line
 * on stderr naming the folder and how to remove it; it never throws, and never changes the exit
 * code. Node edge.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, opendirSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOwnAndClosed } from './own-file.ts';

/** Paths longer than this are moved up to the tree's root before being read (PATH_MAX is 4096 on Linux, 1024 on macOS). */
const SHORT_PATH = 768;

/**
 * Removes the tree `root` of this user whatever a package made of it: each folder made
 * `u+rwx` before it is read, a folder whose path would exceed {@link SHORT_PATH} renamed to a
 * short name directly in `root` first, symbolic links removed, never followed. Throws the first
 * error it cannot get past.
 */
function removeTreeHard(root: string): void {
  const stack: { path: string; read: boolean }[] = [{ path: root, read: false }];
  let moved = 0;
  const open = (path: string): string => {
    chmodSync(path, (lstatSync(path).mode & 0o7777) | 0o700);
    if (path.length <= SHORT_PATH) return path;
    let short: string;
    do short = join(root, `.mep-deep-${moved++}`);
    while (exists(short));
    renameSync(path, short);
    return short;
  };
  open(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.read) {
      stack.pop();
      rmdirSync(top.path);
      continue;
    }
    top.read = true;
    for (const entry of readdirSync(top.path, { withFileTypes: true })) {
      const path = join(top.path, entry.name);
      if (entry.isDirectory()) stack.push({ path: open(path), read: false });
      else unlinkSync(path);
    }
  }
}

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/** Removes `dir` (see the module comment); false when something of it stays. */
function removeTree(dir: string): boolean {
  try {
    rmSync(dir, { recursive: true, force: true });
    return true;
  } catch {
    try {
      removeTreeHard(dir);
      return true;
    } catch {
      return !exists(dir);
    }
  }
}

/** Removes `dir`, or says on stderr, in one line, that it stays and how to remove it. */
function removeOrWarn(dir: string): void {
  if (removeTree(dir)) return;
  try {
    // A TMPDIR with control characters is named escaped only: nothing raw reaches the terminal.
    const quoted = /[\u0000-\u001f\u007f-\u009f]/.test(dir) ? 'it' : `'${dir.replaceAll("'", "'\\''")}'`;
    process.stderr.write(`mep: warning: could not remove the temporary folder ${JSON.stringify(dir)}; remove it with: chmod -R u+rwx ${quoted}; rm -rf ${quoted}\n`);
  } catch {
    // stderr is gone: nothing else can be said.
  }
}

/** Whether process `pid` runs (EPERM: it does, as another user's). */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Names of one kind (`<prefix><pid>-…`) a sweep looks at, and entries of the temporary directory it
 * reads: another user of a shared `/tmp` can plant any number of such names, and each cost a
 * failed `kill` (an exception) on the event loop of every `mep install` and first process
 * extension run (200,000 planted: 4.0 s of CPU). What one sweep leaves, the next goes on with;
 * planted names can only keep a stale folder of this user on disk, never make anything run.
 */
export const SWEEP_NAMES = 256;
const SWEEP_ENTRIES = 100_000;

/** Removes `<prefix><pid>-…` directories in `root` of this user's processes that are gone, {@link SWEEP_NAMES} names looked at at most. */
function sweepStale(root: string, prefix: string): void {
  const uid = process.getuid?.();
  const owner = new RegExp(`^${prefix}(\\d+)-`);
  const listing = opendirSync(root);
  try {
    let names = 0;
    for (let entries = 0, entry = listing.readSync(); entry !== null && names < SWEEP_NAMES && entries < SWEEP_ENTRIES; entry = listing.readSync(), entries++) {
      const pid = owner.exec(entry.name)?.[1];
      if (pid === undefined || Number(pid) === process.pid) continue;
      names++;
      try {
        // The owner first: another user's name costs one lstat, never a signal.
        const info = lstatSync(join(root, entry.name));
        if (info.isDirectory() && (uid === undefined || info.uid === uid) && !processRunning(Number(pid))) removeTree(join(root, entry.name));
      } catch {
        // Gone meanwhile, or not ours to remove.
      }
    }
  } finally {
    listing.closeSync();
  }
}

/**
 * The folder this user's process folders go in: `mep-<uid>` in the temporary directory, made
 * mode 0700, so no other user can plant a name in it and a sweep of it reaches every stale folder
 * of the user (in a shared `/tmp`, names planted beside them used the sweep's {@link SWEEP_NAMES}
 * up first, and a stale folder stayed for good). A `mep-<uid>` that is not a folder of the user's
 * closed to others (planted first) is not used: the temporary directory itself is, as before.
 */
export function processTempRoot(): string {
  const root = tmpdir();
  const uid = process.getuid?.();
  if (uid === undefined) return root;
  const own = join(root, `mep-${uid}`);
  try {
    mkdirSync(own, { mode: 0o700 });
  } catch {
    // There already (the usual case), or the temporary directory refuses it: checked below.
  }
  try {
    const info = lstatSync(own);
    return info.isDirectory() && isOwnAndClosed(info, 0o077) ? own : root;
  } catch {
    return root;
  }
}

/** A directory of this process; see the module comment. */
export interface ProcessTemp {
  readonly dir: string;
  /** Removes it now (and forgets the exit hook), or warns on stderr that it stays; never rejects. Idempotent. */
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
  const root = processTempRoot();
  try {
    sweepStale(root, prefix);
  } catch {
    // Only housekeeping: an unreadable temp directory fails at mkdtemp below with its reason.
  }
  const dir = mkdtempSync(join(root, `${prefix}${process.pid}-`));
  const atExit = (): void => removeOrWarn(dir);
  process.on('exit', atExit);
  let removed: Promise<void> | undefined;
  return {
    dir,
    remove() {
      removed ??= (async () => {
        // The common case off the main thread; what a package made hard to remove, here. The exit
        // hook stays until then: a signal that exits meanwhile still removes what is left.
        if (!(await rm(dir, { recursive: true, force: true }).then(() => true, () => false))) removeOrWarn(dir);
        process.off('exit', atExit);
      })();
      return removed;
    },
  };
}
