/**
 * Incremental Elm compiles (issue 35): `node --import tsx bench/elm-incremental.bench.ts`.
 *
 * The generated 60-module model (fixtures/ir/large-elm-model.ts), compiled in one session with
 * examples/elm-frontend built to wasm (sandboxed), through the library's `compileProject` as
 * `mep compile <dir>` does:
 *   1. a full compile — the baseline of the ratio (the fastest of the three full compiles);
 *   2. one module edited (a value added to M059, a module nothing imports), compiled with the
 *      baseline the full compile left: only that module is compiled again;
 *   3. the same sources compiled in full, whose IR the incremental result must equal (canonical
 *      JSON), so a fast wrong answer cannot count;
 *   4. with BENCH_ELM_INCREMENTAL_ALL=1, also a body-only edit of M000, which every other module
 *      reaches (still one module compiled), checked the same way (two more compiles: minutes).
 * Goal: the one-module edit ≤ 10 % of the full compile (and under 2 s on an idle machine: shown).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeLargeElmProject } from '../fixtures/ir/large-elm-model.ts';
import { canonicalJson } from '../examples/elm-frontend/testing/morphir-elm-make.ts';
import { compileProject, type ProjectCompileOutcome } from '../host/src/project/index.ts';
import type { CompileBaseline } from '../host/src/protocol/index.ts';
import { withLimits } from '../host/src/registry/launch-limits.ts';
import { openTransport, specFromPath } from '../host/src/registry/launch.ts';
import { createSession } from '../host/src/session/session.ts';
import { BENCH_CACHE, Report, ROOT, ms, progress } from './lib.ts';

const report = new Report('elm-incremental (issue 35): one-module edits of the 60-module model, sandboxed');
const dir = join(BENCH_CACHE, 'elm-incremental-60x25');
rmSync(dir, { recursive: true, force: true });
writeLargeElmProject(dir);
progress('building examples/elm-frontend/extension.ts to wasm');
const { buildGuest } = await import('../build/guest/index.ts');
const wasm = (await buildGuest({ entry: join(ROOT, 'examples/elm-frontend/extension.ts'), outFile: join(BENCH_CACHE, 'elm-frontend.wasm'), runtime: 'wasm', typecheck: false })).outFile;

const LIMITS = { callTimeoutMs: 3_600_000 };
const session = createSession({ transport: await openTransport(withLimits(specFromPath(wasm), LIMITS)), requestTimeoutMs: LIMITS.callTimeoutMs });
await session.start();

const timed = async (what: string, baseline: CompileBaseline | 'none'): Promise<{ outcome: ProjectCompileOutcome; ms: number }> => {
  progress(what);
  const started = performance.now();
  const outcome = await compileProject(session, dir, { baseline, output: false });
  const took = performance.now() - started;
  if (!outcome.result.success) throw new Error(`${what} failed: ${JSON.stringify(outcome.result.diagnostics).slice(0, 500)}`);
  return { outcome, ms: took };
};
const counts = (o: ProjectCompileOutcome): string => {
  const c = new Map<string, number>();
  for (const r of o.result.moduleResults ?? []) c.set(r.status, (c.get(r.status) ?? 0) + 1);
  return [...c].map(([s, n]) => `${n} ${s}`).join(', ');
};
const edit = (module: string, change: (text: string) => string): void => {
  const path = join(dir, 'src', 'Scale', `${module}.elm`);
  writeFileSync(path, change(readFileSync(path, 'utf8')));
};

try {
  // A baseline with no modules and no context digest: a full compile that returns every module's results.
  const first = await timed('full compile (no usable baseline)', { modules: [] });
  edit('M059', (t) => `${t}\n\nextraValue : Int\nextraValue =\n    59\n`);
  const leaf = await timed('M059 edited, compiled with the baseline', first.outcome.baseline!);
  const leafFull = await timed('the same sources compiled in full, to compare', 'none');
  const same = (a: ProjectCompileOutcome, b: ProjectCompileOutcome): boolean => canonicalJson(a.result.ir) === canonicalJson(b.result.ir);
  const fullMs = Math.min(first.ms, leafFull.ms);
  report.row('full compile, sandboxed (the faster of 2 in this run)', ms(fullMs), '(baseline)');
  const cell = (run: { outcome: ProjectCompileOutcome; ms: number }, reference: ProjectCompileOutcome): string =>
    `${ms(run.ms)} (${counts(run.outcome)})${same(run.outcome, reference) ? ', IR = full compile\'s' : ', IR DIFFERS from the full compile\'s'}`;
  report.goal({
    what: 'one module edited (M059, nothing imports it), incremental, sandboxed vs a full sandboxed compile',
    measured: cell(leaf, leafFull.outcome),
    baseline: ms(fullMs),
    ratio: same(leaf.outcome, leafFull.outcome) ? leaf.ms / fullMs : Number.NaN,
    ratioMeaning: 'incremental time / full time',
    direction: 'atMost',
    target: 0.1,
  });
  if (process.env.BENCH_ELM_INCREMENTAL_ALL === '1') {
    edit('M000', (t) => t.replace('item.id ++ " " ++ String.fromInt item.count', 'item.id ++ ": " ++ String.fromInt item.count'));
    const base = await timed('M000 edited (body only), compiled with the baseline', leaf.outcome.baseline!);
    const baseFull = await timed('the same sources compiled in full, to compare', 'none');
    report.row('  one module edited (M000, body only; every module reaches it)', cell(base, baseFull.outcome), ms(fullMs), `${((base.ms / fullMs) * 100).toFixed(1)} %`);
    if (!same(base.outcome, baseFull.outcome)) throw new Error('the incremental IR after the M000 edit differs from a full compile of the same sources');
  }
  report.note(`the goal's absolute target: under 2 s on an idle machine (measured: ${ms(leaf.ms)})`);
  report.note('each incremental compile sends the baseline (in the session, without the IR of the modules the frontend says it keeps) and gets the merged IR back: what `mep compile <dir>` and `--watch` do');
} finally {
  await session.close();
  rmSync(dir, { recursive: true, force: true });
}
report.print();
