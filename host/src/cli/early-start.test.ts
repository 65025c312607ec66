import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { earlyModuleFile, opensWasmSession } from './early-start.ts';

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

test('should read ahead only the .wasm file a compile names by path, never an installed id or a process extension', () => {
  assert.is(earlyModuleFile(['compile', 'model', '--extension', './build/Elm.WASM'], '/work'), '/work/build/Elm.WASM');
  assert.is(earlyModuleFile(['compile', 'model', '--extension=/abs/elm.wasm'], '/work'), '/abs/elm.wasm');
  for (const argv of [
    ['compile', 'model', '--extension', 'elm.wasm'],
    ['compile', 'model', '--extension', 'morphir-elm'],
    ['compile', 'model', '--extension', './elm-frontend.mjs'],
    ['compile', 'model'],
    ['compile', 'model', '--', '--extension', './elm.wasm'],
    ['generate', '--extension', './avro.wasm', '--input', 'ir.json'],
  ]) {
    assert.is(earlyModuleFile(argv, '/work'), undefined, argv.join(' '));
  }
});

test.run();
