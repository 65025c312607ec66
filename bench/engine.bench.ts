/**
 * Guest engine bench: size, cold start, rebuild time and bulk throughput of a guest built by
 * build/guest, with the raw @extism/extism floor (a WAT echo guest using Extism's own
 * input/output) measured in the same run. Prints figures and ratios; asserts nothing.
 *
 *   node --import tsx bench/engine.bench.ts
 */
import binaryen from 'binaryen';
import createPlugin from '@extism/extism';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from '../build/engine/index.ts';
import { buildGuest } from '../build/guest/index.ts';
import { createMepPlugin } from '../build/guest/testing/extism-host.ts';
import { FIXTURE_DIR, writeFixture, writeTestExtension } from '../build/guest/testing/fixtures.ts';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, digits = 2): string => n.toFixed(digits);
const row = (label: string, value: string, target = ''): void => console.log(`${label.padEnd(44)} ${value.padStart(14)}  ${target}`);

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

function watEcho(): Uint8Array {
  const mod = binaryen.parseText(ECHO_WAT);
  try {
    return mod.emitBinary();
  } finally {
    mod.dispose();
  }
}

// The child measures from its own process start (performance.timeOrigin) to the first call's end.
const CHILD = `import createPlugin from '@extism/extism';
import { readFileSync } from 'node:fs';
const wasm = readFileSync(process.argv[2]);
let mem, input = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"echo","params":1}'), output;
const user = {
  mep_input_copy: (_, d, l) => { new Uint8Array(mem.buffer).set(input.subarray(0, l), d); return l; },
  mep_output_copy: (_, s, l) => { output = new Uint8Array(mem.buffer).slice(s, s + l); return 0; },
  mep_notify: () => {}, mep_request: () => -1, mep_reply_copy: () => 0, mep_interrupt: () => 0,
  mep_clock_ms: () => 0, mep_random_fill: () => 0,
};
const t0 = performance.now();
const plugin = await createPlugin({ wasm: [{ data: wasm }] }, { useWasi: false, functions: { 'extism:host/user': user } });
mem = (await plugin.getInstance()).exports.memory;
await plugin.call('handle', input);
const t1 = performance.now();
if (!new TextDecoder().decode(output).includes('"result":1')) throw new Error('bad output');
console.log(JSON.stringify({ sinceProcessStart: t1, createAndCall: t1 - t0 }));
`;

async function main(): Promise<void> {
  console.log('mep guest engine bench (Node', process.version + ')\n');
  const out = join(FIXTURE_DIR, 'out', 'bench-extension.wasm');
  const built = await buildGuest({ entry: writeTestExtension(), outFile: out });
  const bytes = readFileSync(out);
  row('guest size after wasm-opt -Oz', `${fmt(bytes.length / 1024, 0)} KB`, `target <= 700 KB (gzip ${fmt(gzipSync(bytes, { level: 9 }).length / 1024, 0)} KB)`);

  // Rebuild with the engine cached: a changed source defeats the guest cache.
  const entry = writeFixture('bench-rebuild.ts', `export function handle(): number { Host.outputString('${Date.now()}'); return 0; }\n`);
  const t = performance.now();
  const rebuilt = await buildGuest({ entry, outFile: join(FIXTURE_DIR, 'out', 'bench-rebuild.wasm') });
  const total = performance.now() - t;
  const opt = rebuilt.timings.optimize ?? 0;
  row('rebuild, engine cached (total)', `${fmt(total, 0)} ms`, `without wasm-opt ${fmt(total - opt, 0)} ms (target <= 2000) + wasm-opt ${fmt(opt, 0)} ms`);
  console.log(`  stages: ${Object.entries(rebuilt.timings).map(([k, v]) => `${k} ${fmt(v, 0)} ms`).join(', ')}`);

  const module = await WebAssembly.compile(bytes);
  const msg = '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"hello":"world"}}';
  const cold: number[] = [];
  for (let i = 0; i < 30; i++) {
    const s = performance.now();
    const p = await createMepPlugin(module);
    await p.call('handle', msg);
    cold.push(performance.now() - s);
    await p.close();
  }
  row('cold start, cached Module + first call', `${fmt(median(cold), 3)} ms`, 'target <= 1 ms (median of 30)');

  const childFile = join(REPO_ROOT, '.cache', 'guest-fixtures', 'bench-child.mjs');
  writeFileSync(childFile, CHILD);
  const fresh: { sinceProcessStart: number; createAndCall: number }[] = [];
  for (let i = 0; i < 5; i++) fresh.push(JSON.parse(execFileSync(process.execPath, [childFile, out], { cwd: REPO_ROOT, encoding: 'utf8' })));
  row('fresh process: compile + instantiate + call', `${fmt(median(fresh.map((f) => f.createAndCall)), 1)} ms`, 'target <= 40 ms (median of 5)');
  row('fresh process: from process start', `${fmt(median(fresh.map((f) => f.sinceProcessStart)), 1)} ms`, '(includes Node boot and loading the SDK)');

  const floor = await createPlugin({ wasm: [{ data: watEcho() }] }, { useWasi: false });
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
