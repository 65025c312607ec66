import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('./wasm-tier.ts', import.meta.url));

/**
 * In a fresh node: a small wasm function called until V8 would have tiered it up, then asked
 * (natives syntax) which tier runs it. `choose` says whether the process took the baseline tier.
 */
function tierAfterHotLoop(choose: boolean, execArgv: string[] = []): string {
  const script = `
    import v8 from 'node:v8';
    import { useBaselineWasmTier } from ${JSON.stringify(MODULE)};
    v8.setFlagsFromString('--allow-natives-syntax');
    if (${choose}) useBaselineWasmTier();
    // (func (export "f") (param i32) (result i32) local.get 0 i32.const 1 i32.add)
    const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,32,0,65,1,106,11]);
    const { instance } = await WebAssembly.instantiate(bytes);
    const f = instance.exports.f;
    const turbo = new Function('f', 'return %IsTurboFanFunction(f)');
    let s = 0;
    for (let round = 0; round < 40 && !turbo(f); round++) {
      for (let i = 0; i < 1e6; i++) s = f(s);
      await new Promise((ok) => setTimeout(ok, 5));
    }
    console.log(turbo(f) ? 'turbofan' : 'liftoff');`;
  return execFileSync(process.execPath, [...execArgv, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
}

test('should keep a hot wasm function on the baseline tier once the process chose it', () => {
  assert.is(tierAfterHotLoop(true), 'liftoff');
});

test('should leave V8 tiering up without the choice (the control that the probe sees a tier-up)', () => {
  assert.is(tierAfterHotLoop(false), 'turbofan');
});

test('should leave a tiering flag given to node itself in charge', () => {
  assert.is(tierAfterHotLoop(true, ['--no-liftoff-only']), 'turbofan');
});

test.run();
