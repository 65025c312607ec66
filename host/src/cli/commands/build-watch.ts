/**
 * `mep build --watch`: build, then rebuild whenever the entry or a file the bundle was made from
 * changes. Each rebuild prints its time and outcome (the diagnostics when it fails); the output is
 * only ever replaced whole (buildGuest writes by rename), so a failed rebuild leaves the last good
 * one in place. Bursts of changes (an editor's save, a checkout) make one rebuild: it starts once
 * the files have been quiet for {@link DEBOUNCE_MS}, and a change during a build queues one more.
 *
 * Folders are watched rather than files, so a save that replaces a file (write a copy, rename it
 * over) is seen like any other; only the names the build read count.
 */
import { basename, dirname, relative, resolve } from 'node:path';
import { isMepError } from '../../protocol/errors.ts';
import type { Io } from '../io.ts';
import { createFolderWatch } from './folder-watch.ts';
import { createRerunner } from './rerun.ts';

/** How long the watched files must be quiet before a rebuild starts (ms): longer than the 0.2 s between an editor's quick saves, so a burst of them makes one rebuild. */
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
  /** Runs one build; throws for a failed one (a MepError with `data.diagnostics` names more files to watch). */
  build(): Promise<WatchedBuild>;
  /** Ends the watch: the current build finishes, then every watcher closes. */
  signal: AbortSignal;
}

const clock = (): string => new Date().toTimeString().slice(0, 8);

/** Files named by a failed build's diagnostics (relative to `cwd`), so fixing one of them rebuilds. */
function filesOfFailure(error: unknown, cwd: string): string[] {
  const diagnostics = isMepError(error) ? (error.data as { diagnostics?: { file?: unknown }[] } | undefined)?.diagnostics : undefined;
  return (diagnostics ?? []).flatMap((d) => (typeof d.file === 'string' && !d.file.startsWith('<') ? [resolve(cwd, d.file)] : []));
}

/**
 * Builds once, then on every change until `signal` aborts. Resolves after the last build ended
 * and every watcher closed; never rejects for a failed build (it prints it and waits for a fix).
 */
export async function watchBuild(io: Io, options: WatchBuildOptions): Promise<void> {
  const { signal } = options;
  const files = new Set<string>([options.entry]);
  let timer: ReturnType<typeof setTimeout> | undefined;

  const schedule = (): void => {
    if (signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), DEBOUNCE_MS);
  };
  // The folders of the files the last build read, each watched on its own (folder-watch.ts); a
  // folder that goes away (a branch switch) is dropped, and the next build says what is missing.
  const folders = createFolderWatch(
    Number.POSITIVE_INFINITY,
    (folder, name) => {
      if (name === null || files.has(resolve(folder, name))) schedule();
    },
    () => undefined,
  );
  const watchFolders = (): void => void folders.set([...new Set([...files].map((f) => dirname(f)))]);
  const once = async (): Promise<void> => {
    const started = performance.now();
    try {
      const built = await options.build();
      files.clear();
      files.add(options.entry);
      for (const input of built.inputs) files.add(input);
      io.out(`[${clock()}] ${built.summary} — ${Math.round(performance.now() - started)} ms, watching ${files.size} file${files.size === 1 ? '' : 's'}`);
    } catch (error) {
      for (const file of filesOfFailure(error, io.cwd)) files.add(file);
      io.err(`[${clock()}] build failed in ${Math.round(performance.now() - started)} ms; the last good output stays. ${error instanceof Error ? error.message : String(error)}`);
    }
    watchFolders();
  };
  const { rebuild, idle } = createRerunner(once, signal);

  const stopped = new Promise<void>((resolveStop) => signal.addEventListener('abort', () => resolveStop(), { once: true }));
  await rebuild();
  if (!signal.aborted) io.err(`mep build: watching ${relative(io.cwd, options.entry) || basename(options.entry)} and what it imports; press Ctrl+C to stop.`);
  await stopped;
  clearTimeout(timer);
  folders.close();
  // A build in flight finishes, so nothing half-written is left behind.
  await idle();
}
