/**
 * Memory growth bench: a guest growing its linear memory one page (64 KiB) at a time up to its
 * cap (fixtures/wasm/memory-bomb.wat), through the wasm transport in worker isolation (what `mep`
 * runs), against the same loop in a bare module on this thread (plain V8, no host) whose memory
 * is declared as the host declares it (shared, capped), measured in the same run. For context,
 * the same bare loop on a memory declared unshared (V8's default, and what the host declared
 * before), to a smaller cap.
 *
 * Found (issue 31): V8 (Node 20) collects garbage at almost every `memory.grow` of an unshared
 * memory once it is past 64 MiB, at a cost in proportion to the live heap of the thread running
 * the guest (256 MiB page by page: 13.6 s). A memory declared shared is grown in place without
 * that; the host now declares the guest's memory shared when it caps it (memory-cap.ts).
 *
 *   npm run bench -- memory-growth       # BENCH_GROWTH_MIB=1024 by default
 */
import { createTestClient, openFixture, rejection } from '../fixtures/wasm/test-client.ts';
import { uleb } from '../fixtures/wasm/hostile-modules.ts';
import { median, ms, progress, Report, x } from './lib.ts';

const mib = Number(process.env.BENCH_GROWTH_MIB ?? 1024);
const maxMemoryBytes = mib * 1024 * 1024;
const UNSHARED_MIB = 128;
const ROUNDS = 3;

/** A module whose `g()` grows its memory (of at most `maxPages`) by one page until that fails. */
function growModule(maxPages: number, shared: boolean): Uint8Array {
  const section = (id: number, content: number[]): number[] => [id, ...uleb(content.length), ...content];
  // block { loop { br_if 1 (memory.grow 1 == -1); br 0 } } memory.size
  const body = [0, 0x02, 0x40, 0x03, 0x40, 0x41, 1, 0x40, 0, 0x41, 0x7f, 0x46, 0x0d, 1, 0x0c, 0, 0x0b, 0x0b, 0x3f, 0, 0x0b];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 0, 1, 0x7f]),
    ...section(3, [1, 0]),
    ...section(5, [1, shared ? 0x03 : 0x01, 1, ...uleb(maxPages)]),
    ...section(7, [1, 1, 0x67, 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/** Plain V8: the bare loop on this thread, page by page to `bytes`. */
async function plain(bytes: number, shared: boolean): Promise<number> {
  const { instance } = await WebAssembly.instantiate(growModule(bytes / 65_536, shared) as Uint8Array<ArrayBuffer>);
  const started = performance.now();
  const pages = (instance.exports.g as () => number)();
  const elapsed = performance.now() - started;
  if (pages !== bytes / 65_536) throw new Error('the bare guest did not reach its cap');
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

const plainMs: number[] = [];
const transportMs: number[] = [];
const unsharedMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  progress(`memory growth: round ${round + 1} of ${ROUNDS}`);
  // Alternated, so a machine that gets busier moves both sides.
  // The unshared one first: a large memory alive elsewhere in the isolate changes when V8 collects.
  unsharedMs.push(await plain(UNSHARED_MIB * 1024 * 1024, false));
  transportMs.push(await transport());
  plainMs.push(await plain(maxMemoryBytes, true));
}
const report = new Report('memory-growth');
const pages = maxMemoryBytes / 65_536;
const perPage = (msValue: number, n: number): string => `${((msValue * 1000) / n).toFixed(1)} µs a page`;
report.row(`plain V8, shared memory, ${pages} grows of one page`, ms(median(plainMs)), '', perPage(median(plainMs), pages));
report.row(`plain V8, unshared memory, ${UNSHARED_MIB} MiB page by page`, ms(median(unsharedMs)), '', perPage(median(unsharedMs), UNSHARED_MIB * 16));
report.goal({
  what: `guest growing page by page to ${mib} MiB, worker isolation vs plain V8 (shared)`,
  measured: ms(median(transportMs)),
  baseline: ms(median(plainMs)),
  ratio: median(transportMs) / median(plainMs),
  ratioMeaning: 'transport / plain',
  direction: 'atMost',
  target: 3,
});
report.note(`per page, unshared (before) vs the transport (now): ${x(median(unsharedMs) / (UNSHARED_MIB * 16) / (median(transportMs) / pages))}`);
report.print();
process.exit(0);
