/**
 * Guest ABI benchmark: `node --import tsx bench/abi.bench.ts`.
 *
 * A 10 MB generate-shaped request through our host, with the MEP host channel attached through
 * the guest's table (the default, portable `extism` ABI) versus imported (the legacy
 * `mep-imports` fast path), on the same WAT guest in both shapes so that only the ABI differs
 * (goal: attached ≥ 0.9× the import path's speed); then a QuickJS guest (`mep build` output,
 * a js-pdk-style echo: `Host.inputString` in, `Host.outputString` out, string slicing only,
 * because QuickJS's own JSON.parse of 10 MB takes seconds and would hide the I/O path) through
 * our host versus the bare Extism SDK (no host functions: kernel I/O, 8 bytes per host call),
 * and the SDK's own floor (a WAT echo through its input/output). No assertions.
 */

/** Answers `{"jsonrpc":"2.0","id":…,"method":…,"params":P}` with `{"jsonrpc":"2.0","id":…,"result":P}`. */
const ECHO_GUEST = `export function handle(): number {
  const s = Host.inputString();
  const id = s.slice(s.indexOf('"id":') + 5, s.indexOf(',"method":'));
  const at = s.indexOf('"params":');
  const params = at < 0 ? 'null' : s.slice(at + 9, s.length - 1);
  Host.outputString('{"jsonrpc":"2.0","id":' + id + ',"result":' + params + '}');
  return 0;
}
`;
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import createPlugin from '@extism/extism';
import { buildGuest } from '../build/guest/index.ts';
import { createBareSdkTransport } from '../build/guest/testing/bare-sdk-transport.ts';
import { loadPortableWatFixture, loadWatFixture } from '../fixtures/wasm/compile.ts';
import { createTestClient } from '../fixtures/wasm/test-client.ts';
import type { Transport } from '../host/src/transport/types.ts';
import { compileExtensionModule, createExtismEngine, createWasmTransport } from '../host/src/transport/wasm/index.ts';
import { resolveWasmLimits } from '../host/src/transport/wasm/limits.ts';
import { createNodeWasmWorkerSpawner } from '../host/src/transport/wasm/node/worker.ts';
import { BENCH_CACHE, Report, irOfSize, median, ms, progress, sample, x } from './lib.ts';

const MB = 1024 * 1024;
const report = new Report('abi');
const spawnWorker = createNodeWasmWorkerSpawner();
const ir = irOfSize(10 * MB);
const params = { ir, target: 'echo', options: {} };
const payloadMb = new TextEncoder().encode(JSON.stringify(params)).length / MB;

/** Median ms of one generate-shaped round trip over `transport` (3 runs after 1 warm-up). */
async function roundTrip(transport: Transport, method: string): Promise<number> {
  const client = createTestClient(transport);
  return median(
    await sample(3, 1, async (i) => {
      const answer = await client.request(i, method, params);
      if (answer.error !== undefined) throw new Error(`the guest failed: ${JSON.stringify(answer.error)}`);
      client.seen.length = 0;
    }),
  );
}

// 1. Same WAT guest, two ABIs, our host.
const legacy = await compileExtensionModule(loadWatFixture('echo'), { name: 'echo-imports' });
const portable = await compileExtensionModule(loadPortableWatFixture('echo'), { name: 'echo-attached' });
for (const isolation of ['inline', 'worker'] as const) {
  progress(`WAT echo, ${isolation}`);
  const times: Record<'imports' | 'attached', number[]> = { imports: [], attached: [] };
  // Both creation orders: the instance created second runs measurably slower here whatever its
  // ABI (memory placement), so each ABI is created first once.
  for (const first of ['imports', 'attached'] as const) {
    const open = (abi: 'imports' | 'attached') => createWasmTransport({ name: `echo-${abi}`, module: abi === 'imports' ? legacy : portable, isolation, spawnWorker });
    const a = await open(first);
    const b = await open(first === 'imports' ? 'attached' : 'imports');
    const transports = first === 'imports' ? { imports: a, attached: b } : { imports: b, attached: a };
    try {
      const clients = { imports: createTestClient(transports.imports), attached: createTestClient(transports.attached) };
      // Alternating calls, so the machine's drift (GC, other processes) hits both sides alike.
      for (let i = 0; i < 5; i++) {
        for (const abi of i % 2 ? (['attached', 'imports'] as const) : (['imports', 'attached'] as const)) {
          const started = performance.now();
          const answer = await clients[abi].request(i, 'generate', params);
          if (answer.error !== undefined) throw new Error(`the guest failed: ${JSON.stringify(answer.error)}`);
          if (i > 0) times[abi].push(performance.now() - started);
          clients[abi].seen.length = 0;
        }
      }
    } finally {
      await a.close();
      await b.close();
    }
  }
  const [imports, attached] = [median(times.imports), median(times.attached)];
  // The ratio of each adjacent pair, then their median: two 10 MB JSON round trips a few ms
  // apart see the same machine, while medians taken separately still carry its drift.
  const paired = median(times.imports.map((t, i) => t / (times.attached[i] as number)));
  report.row(`${payloadMb.toFixed(1)} MB generate-shaped, WAT echo, ${isolation}: import path`, ms(imports));
  report.goal({ what: `${payloadMb.toFixed(1)} MB generate-shaped, WAT echo, ${isolation}: attached channel vs import path`, measured: ms(attached), baseline: ms(imports), ratio: paired, ratioMeaning: 'import ms / attached ms, median of adjacent pairs (speed relative to the import path)', direction: 'atLeast', target: 0.9 });
}

// 1b. The guest call alone (no JSON on the host side): where the two ABIs actually differ.
progress('WAT echo, guest call only');
{
  const bytes = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'generate', params }));
  const engineOf = (module: WebAssembly.Module, name: string) =>
    createExtismEngine(module, { name, limits: resolveWasmLimits(name, {}), grants: {}, interruptFlag: new Int32Array(1), bridge: { notify: () => undefined, artifact: () => undefined, request: () => null, log: () => undefined } });
  const engines = { imports: await engineOf(legacy, 'echo-imports'), attached: await engineOf(portable, 'echo-attached') };
  const times: Record<'imports' | 'attached', number[]> = { imports: [], attached: [] };
  try {
    for (let i = 0; i < 9; i++) {
      for (const abi of i % 2 ? (['attached', 'imports'] as const) : (['imports', 'attached'] as const)) {
        const started = performance.now();
        const outcome = await engines[abi].call(bytes.slice(), 30_000);
        if (!outcome.ok) throw new Error(`the guest failed: ${outcome.error.message}`);
        if (i > 0) times[abi].push(performance.now() - started);
      }
    }
  } finally {
    await engines.imports.close();
    await engines.attached.close();
  }
  const paired = median(times.imports.map((t, i) => t / (times.attached[i] as number)));
  report.row(`${payloadMb.toFixed(1)} MB, WAT echo, guest call only (input copy, scan, output copy): attached`, ms(median(times.attached)), ms(median(times.imports)), x(paired));
}

// 2. A QuickJS guest built by `mep build`: our host versus the bare SDK (what a foreign host gets).
progress('building the js-pdk-style echo guest');
mkdirSync(BENCH_CACHE, { recursive: true });
const entry = join(BENCH_CACHE, 'abi-echo.ts');
writeFileSync(entry, ECHO_GUEST);
const built = await buildGuest({ entry, outFile: join(BENCH_CACHE, 'abi-echo.wasm'), typecheck: false });
const engineGuest = await compileExtensionModule(readFileSync(built.outFile), { name: 'abi-echo' });
progress('QuickJS guest, our host');
const ours = await createWasmTransport({ name: 'abi-echo', module: engineGuest, isolation: 'inline' });
let oursMs: number;
try {
  oursMs = await roundTrip(ours, 'morphir.backend.generate');
} finally {
  await ours.close();
}
progress('QuickJS guest, bare Extism SDK');
const bare = await createBareSdkTransport(new WebAssembly.Module(readFileSync(built.outFile)), 'abi-echo');
let bareMs: number;
try {
  bareMs = await roundTrip(bare, 'morphir.backend.generate');
} finally {
  await bare.close();
}
report.row(`${payloadMb.toFixed(1)} MB generate, QuickJS echo guest, our host (channel attached), inline`, ms(oursMs));
report.row(`${payloadMb.toFixed(1)} MB generate, QuickJS echo guest, bare Extism SDK (kernel I/O)`, ms(bareMs), ms(oursMs), x(bareMs / oursMs));

// 3. The SDK's floor: a WAT echo through Extism's own input and output, no JSON work in the guest.
progress('bare SDK floor');
const raw = await createPlugin({ wasm: [{ module: await WebAssembly.compile(loadWatFixture('extism-echo') as Uint8Array<ArrayBuffer>), name: 'main' }] }, { useWasi: false });
try {
  const bytes = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'generate', params }));
  const floor = median(
    await sample(3, 1, async () => {
      await raw.call(['main', 'handle'], bytes.slice());
      await raw.reset();
    }),
  );
  report.row(`${payloadMb.toFixed(1)} MB echo, bare Extism SDK floor (WAT, SDK input/output)`, ms(floor), ms(oursMs), x(floor / oursMs));
} finally {
  await raw.close();
}
report.note('import path = the MEP host functions imported from extism:host/user (legacy mep-imports ABI); attached = the same functions called through the guest table after mep_host_attach (default extism ABI).');
report.note('ratio column of the QuickJS rows: bare or floor ms / our host ms (how much slower a foreign Extism host is). Our host and the bare-SDK QuickJS row include the host encoding and decoding 10 MB of JSON; the floor row moves bytes only.');
report.note('the machine is shared and 10 MB of JSON makes GC noisy: the guest-call-only row is where the ABIs differ (one host call each way).');
report.print();
