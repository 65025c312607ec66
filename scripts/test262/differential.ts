/**
 * The test262 differential: each selected test runs on quickjs-ng built natively without the
 * project's edits, natively with them, and in the sandbox (the wasm guest engine), and the results
 * are compared. Edited and unedited must agree on every run; the sandbox must agree with native
 * except where ./known.ts documents a harness limit.
 */
import { judge, type RunOutcome } from './outcome.ts';
import { NOT_RUN, SANDBOX_LIMITS, limitOf, type HarnessLimit } from './known.ts';
import { ensureNativeRunner, startNativeRunner, type NativeOpt } from './native.ts';
import { createSandboxRunner } from './sandbox.ts';
import { listTests, loadSuite, testRuns, type TestRun } from './suite.ts';

/** The engines compared. */
export const ENGINES = ['unedited', 'edited', 'sandbox'] as const;
export type EngineName = (typeof ENGINES)[number];

/** One run whose result differs between two engines. */
export interface Difference {
  path: string;
  mode: TestRun['mode'];
  /** Why each engine failed (undefined: it passed). */
  failures: Partial<Record<EngineName, string>>;
}

/** What a differential run found. */
export interface DifferentialReport {
  /** Test files considered. */
  files: number;
  /** Files the conf does not run (excluded paths, skipped features). */
  confSkipped: number;
  /** Runs no runner here can do, by limit id (./known.ts NOT_RUN). */
  notRun: Record<string, number>;
  /** Runs done natively but not in the sandbox, by limit id (./known.ts SANDBOX_LIMITS). */
  sandboxLimited: Record<string, number>;
  /** Runs and passes per engine. */
  counts: Record<EngineName, { runs: number; passed: number; failed: number }>;
  /** Runs where the edited native engine and the unedited one disagree (must be none). */
  editedVsUnedited: Difference[];
  /** Runs passing natively that fail in the sandbox, outside the documented limits (must be none). */
  sandboxOnlyFailures: Difference[];
  /** Runs failing natively that pass in the sandbox (reported, not an error). */
  sandboxOnlyPasses: Difference[];
}

/** Options of {@link runDifferential}. */
export interface DifferentialOptions {
  /** Test paths (`test/…`) to run; default every test of the snapshot. */
  paths?: string[];
  /** The native engines' optimization level (./native.ts; default -O1). */
  opt?: NativeOpt;
  /** Called after each file. */
  onProgress?: (done: number, total: number) => void;
}

/** A seeded choice of `count` test paths (the same seed, the same tests). */
export function sampleTests(count: number, seed: number, filter = ''): string[] {
  const all = listTests(loadSuite().root).filter((p) => p.includes(filter));
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, count).sort();
}

/** Runs the differential over `options.paths` (default: the whole snapshot). */
export async function runDifferential(options: DifferentialOptions = {}): Promise<DifferentialReport> {
  const suite = loadSuite();
  const paths = options.paths ?? listTests(suite.root);
  const natives = { unedited: startNativeRunner(await ensureNativeRunner('unedited', options.opt)), edited: startNativeRunner(await ensureNativeRunner('edited', options.opt)) };
  const sandbox = await createSandboxRunner();
  const report: DifferentialReport = {
    files: paths.length,
    confSkipped: 0,
    notRun: {},
    sandboxLimited: {},
    counts: { unedited: { runs: 0, passed: 0, failed: 0 }, edited: { runs: 0, passed: 0, failed: 0 }, sandbox: { runs: 0, passed: 0, failed: 0 } },
    editedVsUnedited: [],
    sandboxOnlyFailures: [],
    sandboxOnlyPasses: [],
  };
  const count = (engine: EngineName, verdict: ReturnType<typeof judge>): string | undefined => {
    const c = report.counts[engine];
    c.runs++;
    if (verdict.pass) c.passed++;
    else c.failed++;
    return verdict.pass ? undefined : verdict.why;
  };
  // Files go in chunks: the native engines get a chunk's runs at once (pipelined) and run them
  // in their processes while the sandbox runs them in this one.
  const CHUNK = 100;
  try {
    for (let first = 0; first < paths.length; first += CHUNK) {
      const work: { path: string; run: TestRun; limit: HarnessLimit | undefined; native: Promise<RunOutcome[]>; sandbox?: RunOutcome }[] = [];
      for (const path of paths.slice(first, first + CHUNK)) {
        const { runs, skip } = testRuns(suite, path);
        if (skip) report.confSkipped++;
        for (const run of runs) {
          const notRun = limitOf(NOT_RUN, run);
          if (notRun) {
            report.notRun[notRun.id] = (report.notRun[notRun.id] ?? 0) + 1;
            continue;
          }
          work.push({ path, run, limit: limitOf(SANDBOX_LIMITS, run), native: Promise.all([natives.unedited.run(run), natives.edited.run(run)]) });
        }
      }
      for (const w of work) if (!w.limit) w.sandbox = await sandbox.run(w.run);
      for (const { path, run, limit, native, sandbox: inSandbox } of work) {
        const [unedited, edited] = await native;
        const failures: Difference['failures'] = { unedited: count('unedited', judge(run, unedited!)), edited: count('edited', judge(run, edited!)) };
        if (limit) report.sandboxLimited[limit.id] = (report.sandboxLimited[limit.id] ?? 0) + 1;
        else failures.sandbox = count('sandbox', judge(run, inSandbox!));
        const diff = { path, mode: run.mode, failures };
        if ((failures.unedited === undefined) !== (failures.edited === undefined)) report.editedVsUnedited.push(diff);
        if (!limit && failures.edited === undefined && failures.sandbox !== undefined) report.sandboxOnlyFailures.push(diff);
        if (!limit && failures.edited !== undefined && failures.sandbox === undefined) report.sandboxOnlyPasses.push(diff);
      }
      options.onProgress?.(Math.min(first + CHUNK, paths.length), paths.length);
    }
  } finally {
    natives.unedited.close();
    natives.edited.close();
  }
  return report;
}
