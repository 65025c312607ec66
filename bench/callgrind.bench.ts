/**
 * The engine's edits counted in instructions (issue 32): `node --import tsx bench/callgrind.bench.ts`.
 *
 * Wall-clock figures swing on a shared machine; callgrind's instruction counts of a native run do
 * not. Each workload runs under `valgrind --tool=callgrind` in two native builds of quickjs-ng
 * 0.17.0 (build/engine/native.ts): without any edit, at the wasm engine's former flags (-Os), and
 * with the engine's edits and flags, as the wasm engine is built. Workloads (reduced inputs, so a
 * run takes a minute or two):
 *   - morphir-elm's Elm compiler on a 1-module project of 5 types (bench/elm-program.ts: parsing
 *     its 2 MB of JS is part of the count),
 *   - the GraphQL backend and the IR lint of bench/author-workloads on 60 record types
 *     (bench/native-workload.ts).
 * Goal: the edited engine ≤ 0.75× the unedited one on the Elm compiler and on GraphQL. Then
 * `lint-rules`: where the lint's count goes, the edited engine only: the lint with each rule it
 * computes turned off in turn (its share is the difference) and with all of them off (what is
 * left: parsing the IR and the TOML, reading the model, the report). The profiles stay in
 * .cache/bench/callgrind/ for `callgrind_annotate`.
 *
 *   BENCH_CALLGRIND_ONLY=graphql node --import tsx bench/callgrind.bench.ts   # one workload
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINE_CACHE_DIR } from '../build/engine/index.ts';
import { ensureNativeEngine } from '../build/engine/native.ts';
import { elmCompileProgram } from './elm-program.ts';
import { heavyIr } from './guests/workloads/heavy-ir.ts';
import { nativeWorkloadScript } from './native-workload.ts';
import { BENCH_CACHE, exitWithoutValgrind, progress, Report, VALGRIND, x } from './lib.ts';

const run = promisify(execFile);
const TYPES = 60;
const ELM = { modules: 1, typesPerModule: 5 };
const ONLY = process.env.BENCH_CALLGRIND_ONLY;
const report = new Report('callgrind (issue 32): native instruction counts, edited engine vs quickjs-ng without edits');

exitWithoutValgrind(report);

const dir = join(BENCH_CACHE, 'callgrind');
mkdirSync(dir, { recursive: true });
const irPath = join(dir, `ir-${TYPES}.json`);
writeFileSync(irPath, JSON.stringify(heavyIr(TYPES)));
const elmPath = join(dir, `elm-${ELM.modules}x${ELM.typesPerModule}.js`);
writeFileSync(elmPath, `${elmCompileProgram(ELM.modules, ELM.typesPerModule)}print(__elmCompile());\n`);

const WORKLOADS = [
  { name: 'elm', what: `morphir-elm's Elm compiler, ${ELM.modules} module × ${ELM.typesPerModule} types (its 2 MB of JS parsed)`, script: elmPath, goal: true },
  { name: 'graphql', what: `GraphQL backend (graphql, prettier, fflate), ${TYPES} record types`, script: nativeWorkloadScript('graphql', irPath), goal: true },
  { name: 'lint', what: `IR lint (pluralize, @noble/hashes, date-fns, smol-toml), ${TYPES} record types`, script: nativeWorkloadScript('lint', irPath), goal: false },
].filter((w) => !ONLY || ONLY.split(',').includes(w.name));
/** The lint's rules that cost more than a test, each with the library it runs. */
const LINT_RULES = [
  ['duplicate-definitions', 'sha256 fingerprints, @noble/hashes'],
  ['singular-type-names', 'pluralize'],
  ['plural-list-fields', 'pluralize'],
  ['valid-since-dates', 'date-fns'],
] as const;

progress('building the native engines (edited, and without edits)');
const edited = await ensureNativeEngine({ cacheDir: ENGINE_CACHE_DIR });
const unedited = await ensureNativeEngine({ cacheDir: ENGINE_CACHE_DIR, patches: [], opt: '-Os' });

/** Instructions of one run under callgrind, and what the script printed. */
async function count(runner: string, script: string, out: string): Promise<{ instructions: number; output: string }> {
  const { stdout, stderr } = await run(VALGRIND, ['--tool=callgrind', '--dump-instr=no', `--callgrind-out-file=${out}`, runner, script], { maxBuffer: 64 << 20 });
  const collected = /Collected : (\d+)/.exec(stderr)?.[1];
  if (collected === undefined) throw new Error(`callgrind reported no count for ${script}: ${stderr.slice(-400)}`);
  return { instructions: Number(collected), output: stdout.trim() };
}

const G = (n: number): string => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 0 })} M`;
for (const w of WORKLOADS) {
  progress(`${w.what}: without edits`);
  const base = await count(unedited, w.script, join(dir, `${w.name}.unedited.out`));
  progress(`${w.what}: edited (${G(base.instructions)} instructions without edits)`);
  const mine = await count(edited, w.script, join(dir, `${w.name}.edited.out`));
  if (mine.output !== base.output) throw new Error(`the engines disagree on ${w.name}: ${mine.output.slice(0, 200)} / ${base.output.slice(0, 200)}`);
  const what = `${w.what}: instructions, edited engine vs quickjs-ng without edits (-Os)`;
  if (w.goal) report.goal({ what, measured: G(mine.instructions), baseline: G(base.instructions), ratio: mine.instructions / base.instructions, ratioMeaning: 'edited / unedited', direction: 'atMost', target: 0.75 });
  else report.row(what, G(mine.instructions), G(base.instructions), `${x(mine.instructions / base.instructions)} edited / unedited`);
}
if (!ONLY || ONLY.split(',').includes('lint-rules')) {
  progress(`the lint's rules, ${TYPES} record types: all on`);
  const all = (await count(edited, nativeWorkloadScript('lint', irPath), join(dir, 'lint-rules.all.out'))).instructions;
  for (const [rule, library] of LINT_RULES) {
    progress(`the lint without ${rule}`);
    const without = (await count(edited, nativeWorkloadScript('lint', irPath, { lintRulesOff: [rule] }), join(dir, `lint-rules.without-${rule}.out`))).instructions;
    report.row(`  lint rule ${rule} (${library}): instructions, the edited engine`, G(all - without), G(all), `${((100 * (all - without)) / all).toFixed(1)} % of the lint`);
  }
  const rest = (await count(edited, nativeWorkloadScript('lint', irPath, { lintRulesOff: LINT_RULES.map(([r]) => r) }), join(dir, 'lint-rules.none.out'))).instructions;
  report.row('  the lint with those rules off (IR and TOML parsing, reading the model, the report)', G(rest), G(all), `${((100 * rest) / all).toFixed(1)} % of the lint`);
}
report.note(`profiles: ${dir}/<workload>.{edited,unedited}.out (callgrind_annotate FILE); both engines printed the same result for every workload`);
report.print();
