/**
 * `mep build --watch`: build, then rebuild whenever the entry or a file the bundle was made from
 * changes. Each rebuild prints its time and outcome (the diagnostics when it fails); the output is
 * only ever replaced whole (buildGuest writes by rename), so a failed rebuild leaves the last good
 * one in place. Bursts of changes (an editor's save, a checkout) make one rebuild: a rebuild
 * starts at the first change, but what it made is published (written, printed) only once the
 * files have been quiet for {@link DEBOUNCE_MS}; a change before then supersedes it (nothing of it
 * is written or printed) and the next build reads the edit. So the quiet time overlaps the work,
 * rather than coming before it. A change after the publication queues one more build.
 *
 * Folders are watched rather than files, so a save that replaces a file (write a copy, rename it
 * over) is seen like any other; only the names the build read count. At most
 * `HOST_FILE_LIMITS.watchedFolders` are watched (one inotify watch each on Linux, shared by every
 * program of the user): the entry's, then the shallowest, and a line says how many are left out.
 */
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { isMepError } from '../../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../../protocol/limits.ts';
import type { Io } from '../io.ts';
import { createFolderWatch } from './folder-watch.ts';
import { createRerunner } from './rerun.ts';

/** How long the watched files must be quiet before a rebuild is published (ms): longer than the 0.2 s between an editor's quick saves, so a burst of them makes one rebuild. */
export const DEBOUNCE_MS = 300;

/** What one build reports to the watcher. */
export interface WatchedBuild {
  /** The line to print for a good build (`Built …`). */
  summary: string;
  /** Every file the build read (absolute paths). */
  inputs: readonly string[];
}

/** Options of {@link watchBuild}. */
export interface WatchBuildOptions {
  /** The entry (absolute), watched even when no build succeeded yet. */
  entry: string;
  /**
   * Runs one build; throws for a failed one (a MepError with `data.diagnostics` names more files
   * to watch). It may work at once, but writes nothing before `publish` resolves; `publish`
   * rejects when a change superseded the build (then its outcome is dropped, whatever it is).
   */
  build(publish: Promise<void>): Promise<WatchedBuild>;
  /** Ends the watch: the current build finishes, then every watcher closes. */
  signal: AbortSignal;
  /** Most folders watched (default `HOST_FILE_LIMITS.watchedFolders`). */
  maxWatchedFolders?: number;
}

const clock = (): string => new Date().toTimeString().slice(0, 8);

/** Files named by a failed build's diagnostics (relative to `cwd`), so fixing one of them rebuilds. */
function filesOfFailure(error: unknown, cwd: string): string[] {
  const diagnostics = isMepError(error) ? (error.data as { diagnostics?: { file?: unknown }[] } | undefined)?.diagnostics : undefined;
  return (diagnostics ?? []).flatMap((d) => (typeof d.file === 'string' && !d.file.startsWith('<') ? [resolve(cwd, d.file)] : []));
}

/** Folders by how deep they lie (fewest separators first), then by name: the shallowest are watched first. */
const byDepth = (a: string, b: string): number => a.split(sep).length - b.split(sep).length || (a < b ? -1 : a > b ? 1 : 0);

/** The publication of one build: opens after the quiet time, or is superseded by a change. */
interface Gate {
  promise: Promise<void>;
  /** True once opened, false once superseded (settles with the gate). */
  opened: Promise<boolean>;
  supersede(): void;
}

/** A gate that opens `afterMs` from now unless superseded first. */
function openingAfter(afterMs: number): Gate {
  let open!: () => void;
  let refuse!: (error: Error) => void;
  const promise = new Promise<void>((resolveOpen, reject) => {
    open = resolveOpen;
    refuse = reject;
  });
  promise.catch(() => undefined); // a build that stopped early never awaited it
  const timer = setTimeout(open, Math.max(0, afterMs));
  return {
    promise,
    opened: promise.then(
      () => true,
      () => false,
    ),
    supersede: () => {
      clearTimeout(timer);
      refuse(new Error('superseded by a newer change'));
    },
  };
}

/**
 * Builds once, then on every change until `signal` aborts. Resolves after the last build ended
 * and every watcher closed; never rejects for a failed build (it prints it and waits for a fix).
 */
export async function watchBuild(io: Io, options: WatchBuildOptions): Promise<void> {
  const { signal } = options;
  const files = new Set<string>([options.entry]);
  let lastChange = Number.NEGATIVE_INFINITY;
  /** The gate of the build in flight, while it is not yet published. */
  let gate: Gate | undefined;

  const changed = (): void => {
    if (signal.aborted) return;
    lastChange = performance.now();
    gate?.supersede();
    void rebuild();
  };
  // The folders of the files the last build read, each watched on its own (folder-watch.ts); a
  // folder that goes away (a branch switch) is dropped, and the next build says what is missing.
  const maxFolders = options.maxWatchedFolders ?? HOST_FILE_LIMITS.watchedFolders;
  const folders = createFolderWatch(
    maxFolders,
    (folder, name) => {
      if (name === null || files.has(resolve(folder, name))) changed();
    },
    () => undefined,
  );
  let toldBound = false;
  const watchFolders = (): void => {
    const home = dirname(options.entry);
    const others = [...new Set([...files].map((f) => dirname(f)))].filter((f) => f !== home).sort(byDepth);
    const left = folders.set([home, ...others]);
    if (left > 0 && !toldBound) {
      toldBound = true;
      io.err(`mep build: watching the ${maxFolders} shallowest folders of what the build read; ${left} more are not watched, so changes in them are not seen (HOST_FILE_LIMITS.watchedFolders).`);
    }
  };
  /** One build; nothing of it is printed when a change superseded it before it was published. */
  const once = async (): Promise<void> => {
    const started = performance.now();
    const own = (gate = openingAfter(lastChange + DEBOUNCE_MS - started));
    const outcome = await options.build(own.promise).then(
      (built) => ({ built }),
      (error: unknown) => ({ error }),
    );
    const published = await own.opened;
    gate = undefined;
    if (!published) return;
    if ('built' in outcome) {
      files.clear();
      files.add(options.entry);
      for (const input of outcome.built.inputs) files.add(input);
      io.out(`[${clock()}] ${outcome.built.summary} — ${Math.round(performance.now() - started)} ms, watching ${files.size} file${files.size === 1 ? '' : 's'}`);
    } else {
      const { error } = outcome;
      for (const file of filesOfFailure(error, io.cwd)) files.add(file);
      io.err(`[${clock()}] build failed in ${Math.round(performance.now() - started)} ms; the last good output stays. ${error instanceof Error ? error.message : String(error)}`);
    }
    watchFolders();
  };
  // One build at a time; a change during one (or its quiet time) makes one more after it.
  const { rebuild, idle } = createRerunner(once, signal);

  const stopped = new Promise<void>((resolveStop) =>
    signal.addEventListener(
      'abort',
      () => {
        gate?.supersede(); // an unpublished build writes nothing
        resolveStop();
      },
      { once: true },
    ),
  );
  await rebuild();
  if (!signal.aborted) io.err(`mep build: watching ${relative(io.cwd, options.entry) || basename(options.entry)} and what it imports; press Ctrl+C to stop.`);
  await stopped;
  folders.close();
  // A build in flight finishes, so nothing half-written is left behind.
  await idle();
}
