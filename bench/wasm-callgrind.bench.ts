/**
 * The wasm engine counted in instructions (issue 32): wall-clock A/B runs of the sandbox swing with
 * the machine's load; V8's code for the engine, counted by callgrind, does not (repeat runs agree
 * to 0.1 M of about 3,050 M in its wasm code space). Node runs one fresh engine instance on morphir-elm's compiler (1 module × 5 types, as
 * bench/callgrind.bench.ts) under `valgrind --tool=callgrind`, with V8's optimizing compiler only
 * (--no-liftoff --no-wasm-tier-up, --single-threaded), and the instructions of code outside every
 * mapped file (V8's generated code: the engine's wasm, almost all of it) are summed, and apart the
 * part in V8's wasm code space (the engine's alone: the figure to compare); V8 compiling the
 * engine and Node's own work are reported beside. A few minutes per engine on a quiet machine.
 *
 *   node --import tsx bench/wasm-callgrind.bench.ts                          # this checkout's engine
 *   BENCH_WASM_ENGINES=a.wasm,b.wasm node --import tsx bench/wasm-callgrind.bench.ts   # engines to compare
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { ensureEngine } from '../build/engine/index.ts';
import { elmCompileProgram } from './elm-program.ts';
import { BENCH_CACHE, exitWithoutValgrind, progress, Report, ROOT, VALGRIND, x } from './lib.ts';

const run = promisify(execFile);
const report = new Report('wasm-callgrind (issue 32): instructions of the wasm engine\'s code in V8');
exitWithoutValgrind(report);
const dir = join(BENCH_CACHE, 'wasm-callgrind');
mkdirSync(dir, { recursive: true });
const script = join(dir, 'elm-1x5.js');
writeFileSync(script, `${elmCompileProgram(1, 5)}print(__elmCompile());\n`);
const engines = process.env.BENCH_WASM_ENGINES?.split(',').filter(Boolean) ?? [(await ensureEngine()).wasmPath];

/**
 * The generated code's instructions in the 256 MiB-aligned region holding most of them: V8's wasm
 * code space. The JIT code of Node's own JS (tsx, the runner) lies elsewhere and moves the sum of
 * all generated code by about 20 M from run to run; this region's sum repeats to 0.1 M
 * (docs/performance-log.md, 2026-12-04 16:00).
 */
function largestRegion(byAddress: Map<bigint, number>): number {
  const regions = new Map<bigint, number>();
  for (const [address, n] of byAddress) regions.set(address >> 28n, (regions.get(address >> 28n) ?? 0) + n);
  return Math.max(0, ...regions.values());
}

/** Instructions of one run: in total, and in code outside every mapped file (V8's generated code). */
async function count(engine: string, out: string): Promise<{ total: number; generated: number; wasm: number; output: string }> {
  const node = [process.execPath, '--single-threaded', '--no-liftoff', '--no-wasm-tier-up', '--import', 'tsx', join(ROOT, 'bench', 'wasm-callgrind-child.ts'), engine, script];
  const { stdout } = await run(VALGRIND, ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${out}`, ...node], { cwd: ROOT, maxBuffer: 64 << 20 });
  const { stdout: annotated } = await run('callgrind_annotate', ['--threshold=100', '--inclusive=no', out], { maxBuffer: 256 << 20 });
  let total = 0;
  let generated = 0;
  const byAddress = new Map<bigint, number>();
  for (const line of annotated.split('\n')) {
    const m = /^\s*([\d,]+) (?:\(\s*[\d.]+%\)\s+)?(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1]!.replace(/,/g, ''));
    if (m[2]!.includes('PROGRAM TOTALS')) total = n;
    else if (m[2]!.endsWith('[???]')) {
      generated += n;
      const address = /^\?\?\?:0x([0-9a-f]+)/.exec(m[2]!)?.[1];
      if (address) byAddress.set(BigInt(`0x${address}`), (byAddress.get(BigInt(`0x${address}`)) ?? 0) + n);
    }
  }
  if (total === 0) throw new Error(`callgrind_annotate reported no total for ${engine}`);
  return { total, generated, wasm: largestRegion(byAddress), output: stdout.trim() };
}

const M = (n: number, digits = 0): string => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} M`;
const counted: { engine: string; generated: number; wasm: number; output: string }[] = [];
for (const [i, engine] of engines.entries()) {
  progress(`${basename(engine)} (${i + 1} of ${engines.length})`);
  const c = await count(engine, join(dir, `${basename(engine, '.wasm')}.out`));
  const first = counted[0];
  report.row(`morphir-elm 1×5 in ${basename(engine)}: generated code`, M(c.generated), first ? M(first.generated) : '', first ? `${x(c.generated / first.generated)} of the first` : '');
  report.row(`  of it in V8's wasm code space (repeats to 0.1 M)`, M(c.wasm, 1), first ? M(first.wasm, 1) : '', first ? `${x(c.wasm / first.wasm)} of the first` : '');
  report.row(`  the rest (V8 compiling the engine, Node)`, M(c.total - c.generated));
  counted.push({ engine, ...c });
}
if (new Set(counted.map((c) => c.output)).size > 1) throw new Error(`the engines disagree: ${counted.map((c) => c.output).join(' / ')}`);
report.note(`profiles: ${dir}/<engine>.out; every engine printed ${counted[0]?.output}`);
report.print();
