import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { earlyModuleFile, launchPlanOf, opensWasmSession } from './early-start.ts';

test('should expect a wasm session for an operation on a .wasm file, an installed id or a provider found by claims', () => {
  for (const argv of [
    ['generate', '--target', 'avro', '--input', 'ir.json', '--output', 'out', '--extension', 'avro.wasm'],
    ['validate', '--extension=./build/AVRO.WASM', '--input', 'ir.json'],
    ['transform', '--extension', 'morphir-avro', '--input', 'ir.json'],
    ['generate', '--target', 'avro', '--input', 'ir.json', '--output', 'out'],
    ['compile', 'model', '--extension', './elm-frontend.wasm', '--output', 'ir.json'],
    ['compile', 'model'],
  ]) {
    assert.ok(opensWasmSession(argv), argv.join(' '));
  }
});

test('should expect none for other commands, help, or process extensions', () => {
  for (const argv of [
    [],
    ['build', 'extension.ts'],
    ['describe', 'avro.wasm'],
    ['generate', '--help'],
    ['generate', '--extension', 'avro.mjs', '--input', 'ir.json'],
    ['generate', '--extension=ext.cjs'],
    ['validate', '--extension', './bin/my-validator'],
    ['generate', '--extension', 'C:\\ext\\validator.exe'],
    ['compile', 'model', '--extension', 'elm-frontend.mjs'],
    ['compile', '--help'],
  ]) {
    assert.not.ok(opensWasmSession(argv), argv.join(' '));
  }
});

test('should read ahead only the .wasm file an operation or a call names by path, never an installed id or a process extension', () => {
  assert.is(earlyModuleFile(['compile', 'model', '--extension', './build/Elm.WASM'], '/work'), '/work/build/Elm.WASM');
  assert.is(earlyModuleFile(['compile', 'model', '--extension=/abs/elm.wasm'], '/work'), '/abs/elm.wasm');
  assert.is(earlyModuleFile(['generate', '--extension', './avro.wasm', '--input', 'ir.json'], '/work'), '/work/avro.wasm');
  assert.is(earlyModuleFile(['transform', '--input', 'ir.json', '--extension=../t.wasm'], '/work/x'), '/work/t.wasm');
  assert.is(earlyModuleFile(['call', './guest.wasm', 'x/ping'], '/work'), '/work/guest.wasm');
  for (const argv of [
    ['compile', 'model', '--extension', 'elm.wasm'],
    ['compile', 'model', '--extension', 'morphir-elm'],
    ['compile', 'model', '--extension', './elm-frontend.mjs'],
    ['compile', 'model'],
    ['compile', 'model', '--', '--extension', './elm.wasm'],
    ['compile', 'model', '--extension', './elm.wasm', '--help'],
    ['generate', '--extension', './avro.wasm', '--input', 'ir.json', '-h'],
    ['generate', '--extension', 'avro', '--input', 'ir.json'],
    ['call', 'guest.wasm', 'x/ping'],
    ['call', '--json', './guest.wasm', 'x/ping'],
    ['describe', './guest.wasm'],
  ]) {
    assert.is(earlyModuleFile(argv, '/work'), undefined, argv.join(' '));
  }
});


test('should decide one launch plan: the cached bundle and the early module for a .wasm given by path, the thread for any wasm session', () => {
  assert.equal(launchPlanOf(['generate', '--extension', './avro.wasm', '--target', 'avro', '--input', 'ir.json', '--output', 'out'], '/work'), { command: 'generate', wasm: true, moduleFile: '/work/avro.wasm' });
  assert.equal(launchPlanOf(['call', './guest.wasm', 'x/ping'], '/work'), { command: 'call', wasm: true, moduleFile: '/work/guest.wasm' });
  assert.equal(launchPlanOf(['generate', '--extension', 'avro', '--input', 'ir.json'], '/work'), { command: 'generate', wasm: true });
  assert.equal(launchPlanOf(['generate', '--extension', './avro.mjs', '--input', 'ir.json'], '/work'), { command: 'generate', wasm: false });
  assert.equal(launchPlanOf(['list'], '/work'), { command: 'list', wasm: false });
  assert.equal(launchPlanOf([], '/work'), { command: undefined, wasm: false });
});

test.run();
