/**
 * Guest engine bench: size, cold start, rebuild time and bulk throughput of a guest built by
 * build/guest, with the raw @extism/extism floor (a WAT echo guest using Extism's own
 * input/output) measured in the same run. Every time goal is a ratio to a baseline measured in
 * this run (these machines are noisy), recorded for `bench/run.ts`'s summary (MET / MISSED):
 *
 * - rebuild, engine cached (without wasm-opt) ≤ 5× a bare `node -e 0` (spawn → exit, median of
 *   5, measured just before). The goal was "≤ 2000 ms" (issue 3), set when `node -e 0` took
 *   65–70 ms on these machines (30× it); the first idle whole run of this form (2026-12-03 15:35
 *   UTC) measured 0.96×, so 30× bounded nothing: 5× is the author loop's goal for a watch
 *   rebuild (bench/author-loop), the same work seen from the editor.
 *   A rebuild is CPU work in one Node process (esbuild, the snapshot, the link; the type check on
 *   a thread beside them), so it moves with load as a Node start does. The median of 3 rebuilds,
 *   each of a new source: the first of a process also starts the type-check thread.
 * - cold start (cached Module: instantiate + first call) ≤ 10× the raw Extism floor's (the WAT
 *   echo guest: the SDK's createPlugin + one call), taken in turn, 5 warm-up rounds then the
 *   medians of 30 (bench/cold-start.ts). Since the recycled memories (2026-12-04) the guest is
 *   instantiated as the runtime does it: compiled by compileExtensionModule, run by the runtime's
 *   engine on a memory from the thread's pool; the same engine on the guest's own memory, and the
 *   test host (createMepPlugin, what the row measured before) are printed beside it, with the
 *   page faults of each. The floor is what no guest can avoid; the goal bounds what a guest adds
 *   (its memory snapshot's pages, the first call through the engine). It was "≤ 1 ms", set
 *   beside a 0.56 ms cold start on a quiet machine; the first run of this form (load average 21)
 *   measured the guest at 6.6× a 0.205 ms floor, which puts the quiet floor near 0.1 ms, so
 *   1 ms is about 10× it.
 * - fresh process: compile + create + first call ≤ 0.6× a bare `node -e 0`. The goal was
 *   "≤ 40 ms" set beside a 65 ms Node start: loading a guest in a `mep` that just started costs
 *   less than the Node start itself. The child times it from inside (after the SDK's import), the
 *   baseline is a whole process; both are a fresh process's cold CPU work.
 * - guest size (small extension, without its source map section) ≤ 1 MiB: an absolute budget,
 *   recorded as a goal (size / 1 MiB ≤ 1×): bytes do not depend on the machine's load, and 1 MiB
 *   is what a guest may weigh on disk and over the wire (issue 23).
 *
 * The previous pipeline's figures (wizer snapshot, binaryen.js link, wasm-opt -Oz per guest,
 * measured on a quiet machine) are printed beside them as history, not judged.
 *
 *   node --import tsx bench/engine.bench.ts
 */
import createPlugin from '@extism/extism';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { customSectionName, readSections, readVector, SectionId } from '../build/guest/internal/wasm-binary.ts';
import { SOURCE_MAP_SECTION } from '../host/src/transport/source-map/wasm-section.ts';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from '../build/engine/index.ts';
import { buildGuest } from '../build/guest/index.ts';
import { createMepPlugin } from '../build/guest/testing/extism-host.ts';
import { FIXTURE_DIR, writeFixture, writeTestExtension } from '../build/guest/testing/fixtures.ts';
import { hostTrampolineBytes } from '../host/src/transport/wasm/host-channel.ts';
import { goalText, median, nodeStartMs, recordGoal, x, type Goal } from './lib.ts';
import { coldStarts, runtimeStarter } from './cold-start.ts';
import { capSections } from '../host/src/transport/wasm/memory-cap.ts';
import { compileExtensionModule } from '../host/src/transport/wasm/module.ts';
import { WASM_MODULE_BOUNDS } from '../host/src/protocol/limits.ts';
import { maxMemoryPages, resolveWasmLimits } from '../host/src/transport/wasm/limits.ts';

const fmt = (n: number, digits = 2): string => n.toFixed(digits);
const row = (label: string, value: string, target = ''): void => console.log(`${label.padEnd(44)} ${value.padStart(14)}  ${target}`);

/**
 * Figures of the previous pipeline (wizer snapshot, binaryen.js link, wasm-opt -Oz per guest),
 * measured on this kind of machine when it was quiet: history printed beside the figures, never
 * judged (the goals are ratios to baselines of this run, see the header).
 */
const BASELINE = {
  sizeKB: 679,
  rebuildMs: 7000,
  rebuildWasmOptMs: 2300,
  coldMs: 1.44,
  freshMs: 62,
  freshFromStartMs: 178,
  avroKB: 2582,
  avroSegments: 34299,
};

/** `previous pipeline …, now/then = r`: the history beside a figure. */
function history(value: number, unit: string, then: number, digits = 2): string {
  return `previous pipeline ${fmt(then, digits)} ${unit}, now/then = ${fmt(value / then, 2)}x`;
}

/** The goals' targets (see the header for what each means and why). */
const ENGINE_GOALS = { rebuildPerNodeStart: 5, coldPerFloor: 10, freshPerNodeStart: 0.6, sizePerMiB: 1 } as const;

/** A time goal (`ms` ≤ `target` × the baseline's ms) through {@link goalRow}. */
function timeGoal(label: string, what: string, ms: number, digits: number, base: { ms: number; name: string; meaning: string }, target: number, extra: string): void {
  const measured = `${fmt(ms, digits)} ms`;
  goalRow(label, measured, { what, measured, baseline: `${fmt(base.ms, digits)} ms ${base.name}`, ratio: ms / base.ms, ratioMeaning: base.meaning, direction: 'atMost', target }, extra);
}

/** Records a goal for the summary and prints its row: figure, verdict, ratio and baseline. */
function goalRow(label: string, shown: string, g: Omit<Goal, 'bench' | 'met'>, extra = ''): void {
  const goal = recordGoal('engine', g);
  row(label, shown, `${goalText(g.direction, g.target)} ${goal.met ? 'MET' : 'MISSED'}: ${x(g.ratio)} ${g.ratioMeaning}, vs ${g.baseline}${extra ? `; ${extra}` : ''}`);
}

function dataSegments(wasm: Uint8Array): number {
  const data = readSections(wasm).find((s) => s.id === SectionId.Data);
  return data ? readVector(data.body).count : 0;
}

const ECHO_WAT = `(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (func (export "echo") (result i32)
    (local $len i64) (local $off i64) (local $i i64)
    (local.set $len (call $input_length))
    (local.set $off (call $alloc (local.get $len)))
    (block $done (loop $next
      (br_if $done (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $len)))
      (call $store_u64 (i64.add (local.get $off) (local.get $i)) (call $input_load_u64 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 8)))
      (br $next)))
    (block $done2 (loop $next2
      (br_if $done2 (i64.ge_u (local.get $i) (local.get $len)))
      (call $store_u8 (i64.add (local.get $off) (local.get $i)) (call $input_load_u8 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $next2)))
    (call $output_set (local.get $off) (local.get $len))
    (i32.const 0)))`;

/** The floor guest's binary (binaryen.js, loaded only here: it takes seconds to load). */
async function watEcho(): Promise<Uint8Array<ArrayBuffer>> {
  const { default: binaryen } = await import('binaryen');
  const mod = binaryen.parseText(ECHO_WAT);
  try {
    return mod.emitBinary() as Uint8Array<ArrayBuffer>;
  } finally {
    mod.dispose();
  }
}

// The child measures from its own process start (performance.timeOrigin) to the first call's end.
// argv[3] = 'manifest': the SDK gets \`{ wasm: [{ module }] }\` (what hosts pass today; the SDK's
// \`instanceof Response\` check then loads undici); 'module': the bare compiled Module and a
// \`fetch\` stub, which keeps undici unloaded.
const CHILD = `const t0 = performance.now();
const { default: createPlugin } = await import('@extism/extism');
const { readFileSync } = await import('node:fs');
const wasm = readFileSync(process.argv[2]);
const t1 = performance.now();
const module = await WebAssembly.compile(wasm);
const t2 = performance.now();
let mem, input = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"echo","params":1}'), output;
const user = {
  mep_input_copy: (_, d, l) => { new Uint8Array(mem.buffer).set(input.subarray(0, l), d); return l; },
  mep_output_copy: (_, s, l) => { output = new Uint8Array(mem.buffer).slice(s, s + l); return 0; },
  mep_notify: () => {}, mep_request: () => -1, mep_reply_copy: () => 0, mep_interrupt: () => 0,
  mep_clock_ms: () => 0, mep_random_fill: () => 0,
};
const options = { useWasi: false };
const plugin = process.argv[3] === 'module'
  ? await createPlugin(module, { ...options, fetch: () => Promise.reject(new Error('no network')) })
  : await createPlugin({ wasm: [{ module }] }, options);
const instance = await plugin.getInstance();
mem = instance.exports.memory;
// Attach the MEP host channel the way our host does (host/src/transport/wasm/host-channel.ts).
const trampoline = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(process.argv[4])), { mep: Object.fromEntries(Object.entries(user).map(([k, f]) => [k, (...a) => f(undefined, ...a)])) }).exports;
const table = instance.exports.__indirect_function_table;
const first = table.grow(8);
Object.keys(user).forEach((k, i) => table.set(first + i, trampoline[k]));
if (instance.exports.mep_host_attach(first, 8, 1) !== 0) throw new Error('attach refused');
const t3 = performance.now();
await plugin.call('handle', input);
const t4 = performance.now();
if (!new TextDecoder().decode(output).includes('"result":1')) throw new Error('bad output');
console.log(JSON.stringify({ sinceProcessStart: t4, importAndRead: t1 - t0, compile: t2 - t1, create: t3 - t2, firstCall: t4 - t3, createAndCall: t4 - t1 }));
`;

/** The host-channel trampoline the child attaches with. */
const trampolineFile = join(REPO_ROOT, '.cache', 'guest-fixtures', 'bench-trampoline.wasm');

type Fresh = { sinceProcessStart: number; importAndRead: number; compile: number; create: number; firstCall: number; createAndCall: number };

/** Median of each field over `runs` fresh Node processes. */
function freshRuns(childFile: string, wasmFile: string, mode: 'manifest' | 'module', runs: number): Fresh {
  const all: Fresh[] = [];
  for (let i = 0; i < runs; i++) {
    all.push(JSON.parse(execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', childFile, wasmFile, mode, trampolineFile], { cwd: REPO_ROOT, encoding: 'utf8' })));
  }
  return Object.fromEntries(Object.keys(all[0]!).map((k) => [k, median(all.map((f) => f[k as keyof Fresh]))])) as Fresh;
}

/** A fresh plugin of the raw Extism floor (the WAT echo guest). */
const floorPlugin = (echo: WebAssembly.Module) => createPlugin(echo, { useWasi: false, fetch: () => Promise.reject(new Error('no network')) });

/** Rebuilds of a changed source (the engine cached): median total without wasm-opt, and the last build's stages. */
async function rebuilds(runs: number): Promise<{ ms: number; optMs: number; timings: Record<string, number> }> {
  const totals: number[] = [];
  const opts: number[] = [];
  let timings: Record<string, number> = {};
  for (let i = 0; i < runs; i++) {
    // A changed source defeats the guest cache.
    const entry = writeFixture('bench-rebuild.ts', `export function handle(): number { Host.outputString('${Date.now()}-${i}'); return 0; }\n`);
    const t = performance.now();
    const rebuilt = await buildGuest({ entry, outFile: join(FIXTURE_DIR, 'out', 'bench-rebuild.wasm') });
    const opt = rebuilt.timings.optimize ?? 0;
    totals.push(performance.now() - t - opt);
    opts.push(opt);
    timings = rebuilt.timings;
  }
  return { ms: median(totals), optMs: median(opts), timings };
}

async function main(): Promise<void> {
  console.log('mep guest engine bench (Node', process.version + ')\n');
  const out = join(FIXTURE_DIR, 'out', 'bench-extension.wasm');
  const built = await buildGuest({ entry: writeTestExtension(), outFile: out });
  const bytes = readFileSync(out);
  // The budget is the module the engine loads: the source map section (mep.sourcemap, skipped
  // at instantiation) is shown beside it.
  const mapBytes = built.sourceMapBytes === 0 ? 0 : readSections(bytes).filter((s) => s.id === SectionId.Custom && customSectionName(s) === SOURCE_MAP_SECTION).reduce((n, s) => n + 1 + Math.ceil(Math.max(1, Math.ceil(Math.log2(s.body.length + 1))) / 7) + s.body.length, 0);
  const kb = (bytes.length - mapBytes) / 1024;
  goalRow('guest size (small extension)', `${fmt(kb, 0)} KB`, {
    what: 'guest size, small extension, without its source map section (an absolute budget: bytes, not time)',
    measured: `${fmt(kb, 0)} KB`,
    baseline: '1024 KB budget',
    ratio: kb / 1024,
    ratioMeaning: 'size / 1 MiB',
    direction: 'atMost',
    target: ENGINE_GOALS.sizePerMiB,
  }, `${history(kb, 'KB', BASELINE.sizeKB, 0)}; gzip ${fmt(gzipSync(bytes, { level: 9 }).length / 1024, 0)} KB, ${dataSegments(bytes)} data segments; + ${fmt(mapBytes / 1024, 1)} KB source map section`);

  const nodeBeforeRebuild = nodeStartMs(5);
  row('node -e 0 (baseline), spawn → exit', `${fmt(nodeBeforeRebuild, 1)} ms`, 'median of 5');
  const rebuilt = await rebuilds(3);
  timeGoal('rebuild, engine cached (without wasm-opt)', 'rebuild of a changed small extension, engine cached, without wasm-opt (median of 3) vs node -e 0', rebuilt.ms, 0, { ms: nodeBeforeRebuild, name: 'node -e 0', meaning: 'rebuild / node' }, ENGINE_GOALS.rebuildPerNodeStart, history(rebuilt.ms, 'ms', BASELINE.rebuildMs, 0));
  row('  + wasm-opt (dead-code pass per guest)', `${fmt(rebuilt.optMs, 0)} ms`, `previous pipeline -Oz per guest ${BASELINE.rebuildWasmOptMs} ms`);
  console.log(`  stages: ${Object.entries(rebuilt.timings).map(([k, v]) => `${k} ${fmt(v, 0)} ms`).join(', ')}`);
  const cliEntry = writeFixture('bench-rebuild-cli.ts', `export function handle(): number { Host.outputString('${Date.now()}'); return 0; }\n`);
  const c = performance.now();
  execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'mep.mjs'), 'build', cliEntry, '-o', join(FIXTURE_DIR, 'out', 'bench-rebuild-cli.wasm')], { cwd: REPO_ROOT, stdio: 'ignore' });
  row('rebuild through `mep build` (new process)', `${fmt(performance.now() - c, 0)} ms`, 'includes Node boot, tsx and loading TypeScript');

  const module = await WebAssembly.compile(bytes);
  const echoModule = await WebAssembly.compile(await watEcho());
  const msg = '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"hello":"world"}}';
  // The runtime's engine on the module as the runtime compiles it (memory recycled from the
  // thread's pool: memory-pool.ts), and on the same capped bytes keeping their own memory.
  const recycled = await compileExtensionModule(new Uint8Array(bytes), { name: 'bench' });
  const ownMemory = await WebAssembly.compile(capSections(new Uint8Array(bytes), maxMemoryPages(resolveWasmLimits('bench', {})), WASM_MODULE_BOUNDS.tableEntries).bytes as Uint8Array<ArrayBuffer>);
  const cold = await coldStarts({
    guest: runtimeStarter(recycled, msg),
    ownMemory: runtimeStarter(ownMemory, msg),
    testHost: async () => {
      const p = await createMepPlugin(module);
      await p.call('handle', msg);
      return () => p.close();
    },
    floor: async () => {
      const f = await floorPlugin(echoModule);
      await f.call('echo', 'x');
      return () => f.close();
    },
  }, 30);
  const faults = (c: { faults: number; minFaults: number }): string => `${c.faults} page faults (min ${c.minFaults})`;
  timeGoal('cold start, cached Module + first call', 'cold start: cached Module, instantiate + first call through the runtime\'s engine (memory recycled), vs the raw Extism floor (WAT echo, create + call), in turn', cold.guest.ms, 3, { ms: cold.floor.ms, name: 'floor', meaning: 'guest / floor' }, ENGINE_GOALS.coldPerFloor, `${history(cold.guest.ms, 'ms', BASELINE.coldMs, 2)} (medians of 30 after 5 warm-up); ${faults(cold.guest)}`);
  row('  context: same engine, the guest\'s own memory', `${fmt(cold.ownMemory.ms, 3)} ms`, `${x(cold.ownMemory.ms / cold.floor.ms)} the floor; ${faults(cold.ownMemory)}`);
  row('  context: test host (createMepPlugin), own memory', `${fmt(cold.testHost.ms, 3)} ms`, `${x(cold.testHost.ms / cold.floor.ms)} the floor; ${faults(cold.testHost)}; what this row measured before the recycling`);
  row('  SDK floor: WAT echo, create + first call', `${fmt(cold.floor.ms, 3)} ms`, `the baseline above; ${faults(cold.floor)}`);

  const childFile = join(REPO_ROOT, '.cache', 'guest-fixtures', 'bench-child.mjs');
  writeFileSync(childFile, CHILD);
  writeFileSync(trampolineFile, hostTrampolineBytes());
  for (const mode of ['manifest', 'module'] as const) {
    const node = nodeStartMs(5);
    const f = freshRuns(childFile, out, mode, 5);
    const how = mode === 'manifest' ? 'SDK manifest' : 'bare Module + fetch stub';
    timeGoal(`fresh process (${how}): compile + create + call`, `fresh process (${how}): compile + create + first call (median of 5) vs node -e 0`, f.createAndCall, 1, { ms: node, name: 'node -e 0', meaning: 'guest load / node' }, ENGINE_GOALS.freshPerNodeStart, history(f.createAndCall, 'ms', BASELINE.freshMs, 0));
    row('  from process start', `${fmt(f.sinceProcessStart, 1)} ms`, `previous pipeline ${BASELINE.freshFromStartMs} ms; SDK import + read ${fmt(f.importAndRead, 1)}, compile ${fmt(f.compile, 1)}, create ${fmt(f.create, 1)}, first call ${fmt(f.firstCall, 1)} ms`);
  }

  const avroOut = join(FIXTURE_DIR, 'out', 'bench-avro.wasm');
  const avroBuild = await buildGuest({ entry: join(REPO_ROOT, 'examples', 'avro', 'extension.ts'), outFile: avroOut });
  const avro = readFileSync(avroOut);
  const avroKB = avro.length / 1024;
  row('Avro example guest size', `${fmt(avroKB, 0)} KB`, `no budget; ${history(avroKB, 'KB', BASELINE.avroKB, 0)}; gzip ${fmt(gzipSync(avro, { level: 9 }).length / 1024, 0)} KB; of which source map ${fmt(avroBuild.sourceMapBytes / 1024, 0)} KB`);
  row('  its data segments', `${dataSegments(avro)}`, `previous pipeline ${BASELINE.avroSegments}${avroBuild.cached ? ' (from the build cache)' : `; built in ${fmt(Object.values(avroBuild.timings).reduce((a, b) => a + b, 0), 0)} ms`}`);
  const avroModule = await WebAssembly.compile(avro);
  const avroCold: number[] = [];
  for (let i = 0; i < 15; i++) {
    const s = performance.now();
    const p = await createMepPlugin(avroModule);
    avroCold.push(performance.now() - s);
    await p.close();
  }
  row('  Avro guest: instantiate a cached Module', `${fmt(median(avroCold), 3)} ms`, 'median of 15 (no call: its exports take MEP messages)');

  const floor = await floorPlugin(echoModule);
  const guest = await createMepPlugin(module);
  try {
    const small: number[] = [];
    for (let i = 0; i < 200; i++) {
      const s = performance.now();
      await guest.call('handle', msg);
      small.push(performance.now() - s);
    }
    row('small JSON-RPC message through handle', `${fmt(median(small) * 1000, 1)} µs`, 'per call, median of 200');
    console.log('\nthroughput (payload MB / round-trip second; guest echo vs Extism floor echo)');
    for (const mb of [1, 10]) {
      const payload = new Uint8Array(mb * 1024 * 1024);
      for (let i = 0; i < payload.length; i += 997) payload[i] = i & 0xff;
      const runs = mb === 1 ? 5 : 3;
      const g: number[] = [];
      const f: number[] = [];
      for (let i = 0; i < runs; i++) {
        let s = performance.now();
        const go = await guest.call('echo', payload);
        g.push(performance.now() - s);
        if (go.length !== payload.length) throw new Error('guest echo lost bytes');
        s = performance.now();
        const fo = (await floor.call('echo', payload))?.bytes();
        f.push(performance.now() - s);
        if (fo?.length !== payload.length) throw new Error('floor echo lost bytes');
      }
      const gr = mb / (median(g) / 1000);
      const fr = mb / (median(f) / 1000);
      row(`${mb} MB guest (mep bulk copy)`, `${fmt(gr, 0)} MB/s`, `${fmt(median(g), 1)} ms`);
      row(`${mb} MB Extism SDK floor (8 B per host call)`, `${fmt(fr, 0)} MB/s`, `${fmt(median(f), 1)} ms; guest/floor = ${fmt(gr / fr, 1)}x`);
    }
  } finally {
    await guest.close();
    await floor.close();
  }
  if (built.cached) console.log('\n(the bench guest came from the build cache)');
}

await main();
