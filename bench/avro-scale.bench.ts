/**
 * Avro at scale (issues 12 and 26): `node --import tsx bench/avro-scale.bench.ts`.
 *
 * First the IR that morphir-elm 2.82.0 writes for a 60-module, 1,500-type Elm project
 * (fixtures/ir/large-elm-model.ts; the 30.7 MB IR is committed compressed in fixtures/large-ir):
 *   - `mep generate --target avro --option dependencies=shared` with examples/avro built to wasm
 *     (sandboxed, worker) and as a process extension (avro.mjs), under the default limits,
 *   - the peer, `morphir json-schema-gen` of morphir-elm 2.82.0 (devDependency), on the same IR,
 * in interleaved rounds, each a fresh command measured from spawn to exit (wall time, peak RSS,
 * output bytes); the goal is the sandboxed run at least as fast as the peer. Beside it the
 * default self-contained layout (every root's closure in its own file, streamed to the host file
 * by file) under the default limits: its time and output size.
 *
 * Then the synthetic model (fixtures/ir/generate-large.ts, 25 types per module, modules added as
 * it grows) at 250, 500, 1,000, 2,000 and 4,000 types, the same three tools, `dependencies=shared`,
 * with raised limits (`--max-memory 2GiB --call-timeout 10m --max-message 511MiB`), for the
 * growth from 2,000 to 4,000 types (goal ≤ 2.2×: linear) and a plot of time against model size
 * written to .cache/bench/avro-scale.svg.
 *
 *   BENCH_AVRO_SCALE_SIZES=250,500 node --import tsx bench/avro-scale.bench.ts   # a quick run
 *   BENCH_AVRO_SCALE_SIZES=none …   # the morphir-elm model only
 *   BENCH_AVRO_SCALE_RUNS=3 …   # the median of 3 runs per tool and size (default 1; 3 for the morphir-elm model)
 *
 * At the largest synthetic size the sandboxed run is also tried once under the default limits.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { largeElmIrPath } from '../fixtures/ir/large-elm-model.ts';
import { BENCH_CACHE, Report, ROOT, buildBoth, compiledMep, ms, progress, x } from './lib.ts';

/** The compiled `mep`, as a user runs it once installed (not tsx on the sources). */
const MEP = compiledMep();
import { measureCommand, type Measured } from './measure-command.ts';
import { lineChartSvg } from './svg-plot.ts';

const TYPES_PER_MODULE = 25;
const DEFAULT_SIZES = [250, 500, 1000, 2000, 4000];
const sizesText = process.env.BENCH_AVRO_SCALE_SIZES ?? DEFAULT_SIZES.join(',');
const sizes = sizesText === 'none' ? [] : sizesText
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n >= TYPES_PER_MODULE);
if (sizes.length === 0 && sizesText !== 'none') throw new Error(`BENCH_AVRO_SCALE_SIZES must list type counts (≥ ${TYPES_PER_MODULE}), e.g. 250,500, or be none`);
const RUNS = Math.max(1, Number(process.env.BENCH_AVRO_SCALE_RUNS ?? 1) || 1);
const LIMITS = ['--max-memory', '2GiB', '--call-timeout', '10m', '--max-message', '511MiB'];
/** The layout for big models: each named type defined once (examples/avro/README.md, Layouts). */
const AVRO_OPTIONS = ['--option', 'dependencies=shared'];
const report = new Report(`avro-scale (issues 12, 26): the morphir-elm 1,500-type model${sizes.length ? `, synthetic ${sizes.join(' / ')} types` : ''}`);

/**
 * The IR of `types` types, generated once and cached; function bodies are rewritten to typed
 * attributes (`["Unit", ["Unit", {}]]`) because the peer's decoder rejects untyped ones (the Avro
 * backend ignores bodies, so both tools read the same file).
 */
async function irFile(types: number): Promise<string> {
  const modules = Math.ceil(types / TYPES_PER_MODULE);
  const file = join(BENCH_CACHE, 'ir', `scale-${modules}x${TYPES_PER_MODULE}.json`);
  if (existsSync(file)) return file;
  mkdirSync(join(BENCH_CACHE, 'ir'), { recursive: true });
  const raw = `${file}.raw`;
  const made = await measureCommand(process.execPath, ['--import', 'tsx', 'fixtures/ir/generate-large.ts', '--modules', String(modules), '--types-per-module', String(TYPES_PER_MODULE), '--out', raw], ROOT);
  if (made.code !== 0) throw new Error(`generating the IR failed: ${made.stderr.trim()}`);
  const ir = JSON.parse(readFileSync(raw, 'utf8'));
  for (const [, mod] of ir.distribution[3].modules) {
    for (const [, value] of mod.value.values) value.value.value.body = ['Unit', ['Unit', {}]];
  }
  writeFileSync(file, JSON.stringify(ir));
  rmSync(raw);
  return file;
}

/** Files and bytes under `dir` (nothing when it was not written). */
function outputOf(dir: string): { files: number; bytes: number } {
  if (!existsSync(dir)) return { files: 0, bytes: 0 };
  const files = (readdirSync(dir, { recursive: true }) as string[]).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
  return { files: files.length, bytes: files.reduce((n, f) => n + statSync(f).size, 0) };
}

interface Outcome extends Measured {
  output: { files: number; bytes: number };
  failure?: string;
}

const TOOLS = ['wasm', 'process', 'peer'] as const;
type Tool = (typeof TOOLS)[number];
const LABEL: Record<Tool, string> = {
  wasm: 'mep generate, avro.wasm (sandboxed)',
  process: 'mep generate, avro.mjs (process)',
  peer: 'peer: morphir json-schema-gen',
};

progress('building examples/avro/extension.ts to wasm and process');
const built = await buildBoth(join(ROOT, 'examples/avro/extension.ts'), 'avro');
const peerBin = join(ROOT, 'node_modules', 'morphir-elm', 'cli2', 'lib', 'morphir.js');
const outRoot = join(BENCH_CACHE, 'out-scale');

async function run(tool: Tool, ir: string, limits: readonly string[] = LIMITS, avroOptions: readonly string[] = AVRO_OPTIONS): Promise<Outcome> {
  const out = join(outRoot, tool);
  rmSync(out, { recursive: true, force: true });
  const args =
    tool === 'peer'
      ? [existsSync(peerBin) ? peerBin : join(ROOT, 'node_modules', '.bin', 'morphir'), 'json-schema-gen', '--input', ir, '--output', out]
      : [MEP, 'generate', '--extension', tool === 'wasm' ? built.wasm : built.process, '--target', 'avro', '--input', ir, '--output', out, ...avroOptions, ...limits];
  const measured = await measureCommand(process.execPath, args, ROOT);
  const output = outputOf(out);
  if (measured.code === 0) return { ...measured, output };
  const why = (measured.stderr || measured.stdout).trim().split('\n').filter((l) => l && !/ExperimentalWarning|--trace-warnings/.test(l)).slice(-2).join(' | ');
  return { ...measured, output, failure: `exit ${measured.code}: ${why.slice(0, 300)}` };
}

const mb = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : `${(bytes / 1e6).toFixed(1)} MB`);
const cell = (o: Outcome): string => (o.failure ? `failed (${o.failure})` : `${ms(o.ms)}, RSS ${mb(o.peakRssBytes)}, ${mb(o.output.bytes)} in ${o.output.files} files`);
const medianOf = (list: Outcome[]): Outcome => list.find((o) => o.failure) ?? ([...list].sort((a, b) => a.ms - b.ms)[Math.floor(list.length / 2)] as Outcome);

// The IR morphir-elm writes, under the default limits: what a user of a real model gets.
let rssSource = 'unavailable';
{
  const elmIr = largeElmIrPath({ modules: 60, typesPerModule: 25 });
  const rounds = Math.max(RUNS, Number(process.env.BENCH_AVRO_SCALE_RUNS ?? 3) || 3);
  const runs: Record<Tool, Outcome[]> = { wasm: [], process: [], peer: [] };
  for (let round = 0; round < rounds; round++) {
    for (const tool of TOOLS) {
      progress(`morphir-elm 1,500 types: ${LABEL[tool]} (run ${round + 1} of ${rounds})`);
      // The model has one Int-keyed Dict per module, which Avro cannot express: warnings.
      runs[tool].push(await run(tool, elmIr, [], [...AVRO_OPTIONS, '--option', 'unsupported=warn-and-skip']));
    }
  }
  const row = { wasm: medianOf(runs.wasm), process: medianOf(runs.process), peer: medianOf(runs.peer) };
  rssSource = row.wasm.rssSource;
  progress('morphir-elm 1,500 types: the default self-contained layout, sandboxed, default limits');
  // Default memory and message limits; the deadline raised, since 300-odd MB take seconds to write.
  const selfContained = await run('wasm', elmIr, ['--call-timeout', '10m'], ['--option', 'unsupported=warn-and-skip']);
  rmSync(outRoot, { recursive: true, force: true });
  const ir = `morphir-elm 1,500 types (${mb(statSync(elmIr).size)} IR)`;
  report.row(`${ir}: ${LABEL.peer}`, cell(row.peer), '(baseline)');
  for (const tool of ['wasm', 'process'] as const) {
    const o = row[tool];
    report.row(`${ir}: ${LABEL[tool]}, shared, default limits`, cell(o), ms(row.peer.ms), o.failure || row.peer.failure ? 'n/a' : `time ${x(o.ms / row.peer.ms)} of peer`);
  }
  report.row(`${ir}: ${LABEL.wasm}, default self-contained layout, default memory and message limits, --call-timeout 10m`, cell(selfContained), '', selfContained.failure ? 'n/a' : `${x(selfContained.output.bytes / Math.max(1, row.wasm.output.bytes))} the shared layout's bytes`);
  const failed = row.wasm.failure ?? row.peer.failure;
  report.goal({
    what: `${ir}: mep generate --option dependencies=shared (sandboxed wasm) vs the peer, spawn → exit, median of ${rounds}`,
    measured: row.wasm.failure ?? ms(row.wasm.ms),
    baseline: row.peer.failure ?? `${ms(row.peer.ms)} peer`,
    ratio: failed ? Number.NaN : row.peer.ms / row.wasm.ms,
    ratioMeaning: 'peer time / mep time',
    direction: 'atLeast',
    target: 1,
  });
}

const results = new Map<number, Record<Tool, Outcome>>();
for (const types of sizes) {
  progress(`${types} types: generating the IR`);
  const ir = await irFile(types);
  const runs: Record<Tool, Outcome[]> = { wasm: [], process: [], peer: [] };
  // Interleaved rounds, so a burst of load on the machine hits every tool alike.
  for (let round = 0; round < RUNS; round++) {
    for (const tool of TOOLS) {
      progress(`${types} types: ${LABEL[tool]}${RUNS > 1 ? ` (run ${round + 1} of ${RUNS})` : ''}`);
      runs[tool].push(await run(tool, ir));
    }
  }
  results.set(types, { wasm: medianOf(runs.wasm), process: medianOf(runs.process), peer: medianOf(runs.peer) });
  rmSync(outRoot, { recursive: true, force: true });
}

for (const [types, row] of results) {
  const peer = row.peer;
  report.row(`${types} types (${mb(statSync(await irFile(types)).size)} IR): ${LABEL.peer}`, cell(peer), '(baseline)');
  for (const tool of ['wasm', 'process'] as const) {
    const o = row[tool];
    const ratio = o.failure || peer.failure ? 'n/a' : `time ${x(o.ms / peer.ms)}, RSS ${o.peakRssBytes && peer.peakRssBytes ? x(o.peakRssBytes / peer.peakRssBytes) : 'n/a'}, bytes ${x(o.output.bytes / peer.output.bytes)} of peer`;
    report.row(`${types} types: ${LABEL[tool]}`, cell(o), peer.failure ? '' : ms(peer.ms), ratio);
  }
}

// Issue 12's output-size goal on the 2,000-type synthetic model: within twice the peer's bytes.
const goalRow = results.get(2000);
if (goalRow) {
  const { wasm, peer } = goalRow;
  const failed = wasm.failure ?? peer.failure;
  report.goal({ what: '2000 synthetic types: Avro output bytes vs the peer (JSON Schema)', measured: mb(wasm.output.bytes), baseline: `${mb(peer.output.bytes)} peer`, ratio: failed ? Number.NaN : wasm.output.bytes / peer.output.bytes, ratioMeaning: 'mep bytes / peer bytes', direction: 'atMost', target: 2 });
}

// The synthetic sweep's growth, its default-limits run and its plot (skipped with BENCH_AVRO_SCALE_SIZES=none).
if (sizes.length > 0) {
  // Growth: the largest size against half of it, when both ran.
  const largest = Math.max(...sizes);
  const half = results.get(largest / 2);
  const top = results.get(largest);
  if (half && top) {
    for (const tool of TOOLS) {
      const a = half[tool];
      const b = top[tool];
      const ratio = a.failure || b.failure ? Number.NaN : b.ms / a.ms;
      const what = `growth ${largest / 2} → ${largest} types, ${LABEL[tool]}`;
      if (tool === 'peer') report.row(what, Number.isFinite(ratio) ? `${ms(b.ms)} vs ${ms(a.ms)}` : 'failed', '', Number.isFinite(ratio) ? x(ratio) : 'n/a');
      else report.goal({ what, measured: b.failure ?? ms(b.ms), baseline: a.failure ?? ms(a.ms), ratio, ratioMeaning: `time at ${largest} / time at ${largest / 2}`, direction: 'atMost', target: 2.2 });
    }
  } else {
    report.note(`growth ratio needs both ${largest / 2} and ${largest} types in BENCH_AVRO_SCALE_SIZES`);
  }

  // What a user gets at the largest size without raising anything.
  progress(`${largest} types: ${LABEL.wasm} under the default limits`);
  const defaults = await run('wasm', await irFile(largest), []);
  rmSync(outRoot, { recursive: true, force: true });
  report.row(
    `${largest} types: ${LABEL.wasm}, default limits (256MiB, 30s, 64MiB)`,
    defaults.failure ? `fails after ${ms(defaults.ms)}: ${defaults.failure.replace(/^exit \d+: mep generate: /, '').slice(0, 160)}…` : `${ms(defaults.ms)}, succeeds without raised limits`,
  );

  const svgPath = join(BENCH_CACHE, 'avro-scale.svg');
  mkdirSync(BENCH_CACHE, { recursive: true });
  writeFileSync(
    svgPath,
    lineChartSvg({
      title: 'Avro / JSON Schema generation time vs model size',
      xLabel: 'types in the model',
      yLabel: 'wall time, spawn → exit (s)',
      series: TOOLS.map((tool, i) => ({
        name: { wasm: 'mep wasm', process: 'mep process', peer: 'morphir json-schema-gen' }[tool],
        color: ['#c0392b', '#2471a3', '#7f8c8d'][i] as string,
        points: sizes.map((types) => {
          const o = results.get(types)?.[tool];
          return [types, o && !o.failure ? o.ms / 1000 : Number.NaN] as const;
        }),
      })),
    }),
  );
}

report.note(`peak RSS from ${rssSource}; for the process runtime it is the larger of mep and its child (ru_maxrss is a maximum, not a sum)`);
report.note('the morphir-elm model: default limits, the median of 3 interleaved rounds (BENCH_AVRO_SCALE_RUNS raises it)');
if (sizes.length > 0) {
  report.note(`synthetic sizes: mep runs with ${[...AVRO_OPTIONS, ...LIMITS].join(' ')}; every figure is ${RUNS === 1 ? 'one run (BENCH_AVRO_SCALE_RUNS=3 for medians)' : `the median of ${RUNS} runs`}, so expect noise on a shared machine`);
  report.note(`plot: ${join(BENCH_CACHE, 'avro-scale.svg')}`);
}
report.print();
