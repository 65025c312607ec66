/**
 * Memory growth bench: a guest growing its linear memory one page (64 KiB) at a time up to its
 * cap (fixtures/wasm/memory-bomb.wat), through the wasm transport in worker isolation (what `mep`
 * runs) against the same capped module instantiated bare on this thread (plain V8, no host),
 * measured in the same run; and, for scale, the same growth in one step.
 *
 * Found (issue 31): V8 (Node 20) collects garbage at almost every `memory.grow` once the memory is
 * past 64 MiB, and a collection costs in proportion to the live heap of the thread running the
 * guest; so page-by-page growth is slow in plain V8 too, and the host's share is what this bench
 * holds (goal: ≤ 2× plain V8).
 *
 *   npm run bench -- memory-growth       # BENCH_GROWTH_MIB=128 by default
 */
import { compileExtensionModule } from '../host/src/transport/wasm/module.ts';
import { loadWatFixture } from '../fixtures/wasm/compile.ts';
import { createTestClient, openFixture, rejection } from '../fixtures/wasm/test-client.ts';
import { median, ms, progress, Report, x } from './lib.ts';

const mib = Number(process.env.BENCH_GROWTH_MIB ?? 128);
const maxMemoryBytes = mib * 1024 * 1024;
const ROUNDS = 3;

/** Plain V8: the capped module on this thread, grown by its own loop until memory.grow fails. */
async function plain(): Promise<number> {
  const module = await compileExtensionModule(loadWatFixture('memory-bomb'), { name: 'plain', limits: { maxMemoryBytes } });
  const { exports } = await WebAssembly.instantiate(module);
  const started = performance.now();
  try {
    (exports.handle as () => void)();
  } catch {
    // It traps (unreachable) once the cap refuses a page.
  }
  const elapsed = performance.now() - started;
  if ((exports.memory as WebAssembly.Memory).buffer.byteLength !== maxMemoryBytes) throw new Error('the bare guest did not reach its cap');
  return elapsed;
}

/** The transport in worker isolation: the call ends with ERR_LIMIT at the cap. */
async function transport(): Promise<number> {
  const session = await openFixture('memory-bomb', 'worker', { limits: { maxMemoryBytes, callTimeoutMs: 600_000 } });
  try {
    const client = createTestClient(session);
    const started = performance.now();
    await rejection(client.request(1, 'ping'));
    return performance.now() - started;
  } finally {
    await session.close();
  }
}

/** One step: memory.grow of the whole cap at once, on this thread. */
function oneStep(): number {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: maxMemoryBytes / 65_536 });
  const started = performance.now();
  memory.grow(maxMemoryBytes / 65_536 - 1);
  return performance.now() - started;
}

const plainMs: number[] = [];
const transportMs: number[] = [];
const stepMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  progress(`memory growth: round ${round + 1} of ${ROUNDS}`);
  // Alternated, so a machine that gets busier moves both sides.
  transportMs.push(await transport());
  plainMs.push(await plain());
  stepMs.push(oneStep());
}
const report = new Report('memory-growth');
const pages = maxMemoryBytes / 65_536;
report.row(`plain V8, ${pages} grows of one page`, ms(median(plainMs)), '', `${(median(plainMs) * 1000 / pages).toFixed(0)} µs a page`);
report.row(`plain V8, one grow of ${mib} MiB`, ms(median(stepMs)));
report.goal({
  what: `guest growing page by page to ${mib} MiB, worker isolation vs plain V8`,
  measured: ms(median(transportMs)),
  baseline: ms(median(plainMs)),
  ratio: median(transportMs) / median(plainMs),
  ratioMeaning: 'transport / plain',
  direction: 'atMost',
  target: 2,
});
report.note(`page-by-page vs one step in plain V8: ${x(median(plainMs) / Math.max(0.001, median(stepMs)))}`);
report.print();
process.exit(0);
