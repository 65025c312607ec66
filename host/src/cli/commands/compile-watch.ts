/**
 * `mep compile <dir> --watch`: one session with the frontend for the whole watch; the project is
 * compiled, then compiled again whenever a source file or morphir.json changes, each time with the
 * baseline the last compile left (an incremental frontend compiles only what changed). Each
 * outcome is printed with its time. The IR file is only ever replaced whole and only by a compile
 * that succeeded, so a failure leaves the last good IR in place; the modules that did compile
 * stay in the baseline, so fixing the broken one compiles that one again. Bursts of changes (an
 * editor's save) make one compile, started once the files have been quiet for DEBOUNCE_MS; a
 * change during a compile queues one more. The first Ctrl+C ends the watch (with-session.ts
 * aborts the signal), cancelling a compile in flight.
 */
import { lstat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { HOST_FILE_LIMITS } from '../../protocol/limits.ts';
import type { CompileBaseline, Diagnostic } from '../../protocol/index.ts';
import type { ProjectCompileOutcome } from '../../project/index.ts';
import type { Io } from '../io.ts';
import { DEBOUNCE_MS } from './build-watch.ts';
import { createFolderWatch } from './folder-watch.ts';
import { printDiagnostics } from './operation.ts';
import { createRerunner } from './rerun.ts';

/** Options of {@link watchCompile}. */
export interface WatchCompileOptions {
  projectDir: string;
  /**
   * The folders of the source tree, shallowest first (`readSourceFolders`: no link, no
   * dot-directory, bounded like the compile's own walk), each watched on its own; read again
   * after every compile.
   */
  sourceFolders(): Promise<readonly string[]>;
  /** The IR file the compiles write (absolute): its own writes start no compile. */
  output?: string;
  /** Most folders watched (default `HOST_FILE_LIMITS.watchedFolders`). */
  maxWatchedFolders?: number;
  /** File extensions whose changes start a compile (`.elm`). */
  fileExtensions: readonly string[];
  /** Compiles once with `baseline` (`'project'`: the project's kept one). */
  compile(baseline: CompileBaseline | 'project'): Promise<ProjectCompileOutcome>;
  /** Secret values scrubbed from diagnostics. */
  scrub(diagnostics: readonly Diagnostic[]): Diagnostic[];
  signal: AbortSignal;
}

const clock = (): string => new Date().toTimeString().slice(0, 8);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line about a compile's module results: `3 compiled, 57 unchanged`. */
function moduleCounts(outcome: ProjectCompileOutcome): string {
  const counts = new Map<string, number>();
  for (const r of outcome.result.moduleResults ?? []) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return ['compiled', 'unchanged', 'failed', 'blocked'].filter((s) => counts.has(s)).map((s) => `${counts.get(s)} ${s}`).join(', ');
}

/** Prints one compile's outcome: the diagnostics, then a line with its time. */
function report(io: Io, options: WatchCompileOptions, outcome: ProjectCompileOutcome, ms: number): void {
  const { result } = outcome;
  const sources = new Map((outcome.project.params.sources?.documents ?? []).map((d) => [d.uri, d.text]));
  printDiagnostics(io, options.scrub(result.diagnostics), sources);
  const counts = moduleCounts(outcome);
  const detail = counts ? ` (${counts})` : '';
  if (result.success) {
    const where = outcome.output ? `, written to ${relative(io.cwd, outcome.output) || outcome.output}` : '';
    io.out(`[${clock()}] Compiled ${plural(result.modules.length, 'module')}${detail}${where} — ${ms} ms`);
    return;
  }
  const failed = (result.moduleResults ?? []).filter((r) => r.status === 'failed' || r.status === 'blocked').map((r) => r.name);
  const which = failed.length > 0 ? `: ${failed.join(', ')}` : '';
  const usable = result.moduleResults ? `; ${plural(result.modules.length, 'module')} compiled, kept for the next compile` : '';
  io.err(`[${clock()}] Compilation failed${which}${detail} — ${ms} ms; the last good IR stays${usable}.`);
}

/**
 * Compiles once, then on every change until `options.signal` aborts. Resolves after the last
 * compile ended and every watcher closed; never rejects for a failed compile.
 */
export async function watchCompile(io: Io, options: WatchCompileOptions): Promise<void> {
  const { signal } = options;
  let baseline: CompileBaseline | 'project' = 'project';
  let timer: ReturnType<typeof setTimeout> | undefined;
  let toldBound = false;
  /** The IR file the watch writes (as told, then each compile's output). */
  let written: string | undefined = options.output;
  const maxFolders = options.maxWatchedFolders ?? HOST_FILE_LIMITS.watchedFolders;

  const relevant = (name: string): boolean => name === 'morphir.json' || options.fileExtensions.some((e) => name.endsWith(e));
  const schedule = (): void => {
    if (signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), DEBOUNCE_MS);
  };
  const folders = createFolderWatch(
    maxFolders,
    (folder, name) => {
      // Its own write of the IR is no change of the sources, whatever its extension (else a
      // language of .json files, or -o src/ir.elm, would compile forever).
      if (name !== null && join(folder, name) === written) return;
      if (name === null || relevant(name) || folders.has(join(folder, name))) return schedule();
      // A new folder (not a link, not a dot-directory) may bring sources: compile, and walk the tree again.
      if (name.startsWith('.')) return;
      void lstat(join(folder, name)).then((s) => s.isDirectory() && schedule(), () => undefined);
    },
    schedule,
  );
  const watchTree = async (): Promise<void> => {
    let tree: readonly string[];
    try {
      tree = await options.sourceFolders();
    } catch {
      // The compile said what is wrong with the project; morphir.json stays watched.
      tree = [];
    }
    if (signal.aborted) return;
    const left = folders.set([options.projectDir, ...tree.filter((f) => f !== options.projectDir)]);
    if (left > 0 && !toldBound) {
      toldBound = true;
      io.err(`mep compile: watching the ${maxFolders} shallowest folders of ${relative(io.cwd, options.projectDir) || '.'}; ${left} more are not watched, so changes in them are not seen (HOST_FILE_LIMITS.watchedFolders).`);
    }
  };
  const once = async (): Promise<void> => {
    const started = performance.now();
    try {
      const outcome = await options.compile(baseline);
      baseline = outcome.baseline ?? baseline;
      written = outcome.output ?? written;
      if (!signal.aborted) report(io, options, outcome, Math.round(performance.now() - started));
    } catch (error) {
      if (signal.aborted) return;
      io.err(`[${clock()}] compile failed in ${Math.round(performance.now() - started)} ms; the last good IR stays. ${error instanceof Error ? error.message : String(error)}`);
    }
    await watchTree();
  };
  const { rebuild, idle } = createRerunner(once, signal);

  const stopped = new Promise<void>((resolveStop) => (signal.aborted ? resolveStop() : signal.addEventListener('abort', () => resolveStop(), { once: true })));
  await watchTree();
  await rebuild();
  if (!signal.aborted) io.err(`mep compile: watching ${relative(io.cwd, options.projectDir) || '.'} (${options.fileExtensions.join(', ')} and morphir.json); press Ctrl+C to stop.`);
  await stopped;
  clearTimeout(timer);
  folders.close();
  // A compile in flight ends (cancelled), so nothing half-written is left behind.
  await idle();
}
