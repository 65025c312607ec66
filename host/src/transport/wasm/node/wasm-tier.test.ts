import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('./wasm-tier.ts', import.meta.url));

/**
 * In a fresh node: `choose` (a statement calling this module's exports, or nothing) before the
 * module is compiled, then a small wasm function called `calls` times, or `'hot'`: until V8 would
 * have tiered it up; then asked (natives syntax) which tier runs it.
 */
function tierAfter(choose: string, calls: number | 'hot', execArgv: string[] = []): string {
  const script = `
    import v8 from 'node:v8';
    import { useBaselineWasmTier, useOptimizingWasmTier } from ${JSON.stringify(MODULE)};
    v8.setFlagsFromString('--allow-natives-syntax');
    ${choose}
    // (func (export "f") (param i32) (result i32) local.get 0 i32.const 1 i32.add)
    const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,32,0,65,1,106,11]);
    const { instance } = await WebAssembly.instantiate(bytes);
    const f = instance.exports.f;
    const turbo = new Function('f', 'return %IsTurboFanFunction(f)');
    let s = 0;
    if (${JSON.stringify(calls)} === 'hot') {
      for (let round = 0; round < 40 && !turbo(f); round++) {
        for (let i = 0; i < 1e6; i++) s = f(s);
        await new Promise((ok) => setTimeout(ok, 5));
      }
    } else for (let i = 0; i < ${calls === 'hot' ? 0 : calls}; i++) s = f(s);
    console.log(turbo(f) ? 'turbofan' : 'liftoff');`;
  return execFileSync(process.execPath, [...execArgv, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
}

test('should keep a hot wasm function on the baseline tier once the process chose it', () => {
  assert.is(tierAfter('useBaselineWasmTier();', 'hot'), 'liftoff');
});

test('should leave V8 tiering up without the choice (the control that the probe sees a tier-up)', () => {
  assert.is(tierAfter('', 'hot'), 'turbofan');
});

test('should leave a tiering flag given to node itself in charge', () => {
  assert.is(tierAfter('useBaselineWasmTier();', 'hot', ['--no-liftoff-only']), 'turbofan');
});

test('should run a wasm function on the optimising tier from its first call once the process chose it', () => {
  assert.is(tierAfter('useOptimizingWasmTier();', 1), 'turbofan');
});

test('should run a function called once on the baseline tier without the choice (the control)', () => {
  assert.is(tierAfter('', 1), 'liftoff');
});

test("should keep a process's first tier choice when another comes after it", () => {
  assert.is(tierAfter('useBaselineWasmTier(); useOptimizingWasmTier();', 'hot'), 'liftoff');
  assert.is(tierAfter('useOptimizingWasmTier(); useBaselineWasmTier();', 1), 'turbofan');
});

test('should leave the optimising choice to a tiering flag given to node itself', () => {
  assert.is(tierAfter('useOptimizingWasmTier();', 1, ['--liftoff']), 'liftoff');
});

test.run();
