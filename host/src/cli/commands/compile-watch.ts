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
import { watch, type FSWatcher } from 'node:fs';
import { basename, relative } from 'node:path';
import type { CompileBaseline, Diagnostic } from '../../protocol/index.ts';
import type { ProjectCompileOutcome } from '../../project/index.ts';
import type { Io } from '../io.ts';
import { DEBOUNCE_MS } from './build-watch.ts';
import { printDiagnostics } from './operation.ts';
import { createRerunner } from './rerun.ts';

/** Options of {@link watchCompile}. */
export interface WatchCompileOptions {
  projectDir: string;
  /** The folder of the sources (watched with its subfolders). */
  sourceDir(): Promise<string>;
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
  const watchers: FSWatcher[] = [];
  let baseline: CompileBaseline | 'project' = 'project';
  let timer: ReturnType<typeof setTimeout> | undefined;

  const relevant = (name: string | null): boolean => name === null || basename(name) === 'morphir.json' || options.fileExtensions.some((e) => name.endsWith(e));
  const schedule = (): void => {
    if (signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), DEBOUNCE_MS);
  };
  const watchFolder = (folder: string, recursive: boolean): void => {
    try {
      const watcher = watch(folder, { persistent: true, recursive }, (_event, name) => {
        if (relevant(name === null ? null : name.toString())) schedule();
      });
      // A folder that goes away (a branch switch): the next compile says what is missing.
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      io.err(`mep compile: cannot watch ${folder}; changes there are not seen.`);
    }
  };
  const once = async (): Promise<void> => {
    const started = performance.now();
    try {
      const outcome = await options.compile(baseline);
      baseline = outcome.baseline ?? baseline;
      if (!signal.aborted) report(io, options, outcome, Math.round(performance.now() - started));
    } catch (error) {
      if (signal.aborted) return;
      io.err(`[${clock()}] compile failed in ${Math.round(performance.now() - started)} ms; the last good IR stays. ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const { rebuild, idle } = createRerunner(once, signal);

  const stopped = new Promise<void>((resolveStop) => (signal.aborted ? resolveStop() : signal.addEventListener('abort', () => resolveStop(), { once: true })));
  const sourceDir = await options.sourceDir().catch(() => options.projectDir);
  watchFolder(sourceDir, true);
  if (sourceDir !== options.projectDir) watchFolder(options.projectDir, false);
  await rebuild();
  if (!signal.aborted) io.err(`mep compile: watching ${relative(io.cwd, options.projectDir) || '.'} (${options.fileExtensions.join(', ')} and morphir.json); press Ctrl+C to stop.`);
  await stopped;
  clearTimeout(timer);
  for (const watcher of watchers) watcher.close();
  // A compile in flight ends (cancelled), so nothing half-written is left behind.
  await idle();
}
