import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { COMPILE_FLAGS } from './commands/operation-flags.ts';
import { earlyModuleFile, launchPlanOf, opensWasmSession } from './early-start.ts';

const EarlyStart = suite('cli :: what the early start guesses from a command line');

EarlyStart('should expect a wasm session for an operation on a .wasm file, an installed id or a provider found by claims', () => {
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

EarlyStart('should expect none for other commands, help, or process extensions', () => {
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

EarlyStart('should read ahead only the .wasm file an operation or a call names by path, never an installed id or a process extension', () => {
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

EarlyStart('should decide one launch plan: the cached bundle and the early module for a .wasm given by path, the thread for any wasm session', () => {
  assert.equal(launchPlanOf(['generate', '--extension', './avro.wasm', '--target', 'avro', '--input', 'ir.json', '--output', 'out'], '/work'), { command: 'generate', wasm: true, moduleFile: '/work/avro.wasm' });
  assert.equal(launchPlanOf(['call', './guest.wasm', 'x/ping'], '/work'), { command: 'call', wasm: true, moduleFile: '/work/guest.wasm' });
  assert.equal(launchPlanOf(['generate', '--extension', 'avro', '--input', 'ir.json'], '/work'), { command: 'generate', wasm: true });
  assert.equal(launchPlanOf(['generate', '--extension', './avro.mjs', '--input', 'ir.json'], '/work'), { command: 'generate', wasm: false });
  assert.equal(launchPlanOf(['list'], '/work'), { command: 'list', wasm: false });
  assert.equal(launchPlanOf([], '/work'), { command: undefined, wasm: false });
});


EarlyStart('should read ahead no file but the one the command\'s own parser names (a repeated --extension: the last one counts, the first was read)', () => {
  for (const argv of [
    ['compile', 'model', '--extension', './a.wasm', '--extension', './b.wasm'],
    ['compile', 'model', '--extension=./a.wasm', '--extension', './b.wasm'],
    ['compile', 'model', '--extension', './a.wasm', '--extension=morphir-elm'],
    ['compile', 'model', '--extension', './a.wasm', '--extension', './b.mjs'],
    ['compile', 'model', '--extension', './a.wasm', '--', 'other'],
  ]) {
    const named = parseArgs({ args: argv.slice(1), options: COMPILE_FLAGS, allowPositionals: true, strict: true }).values.extension;
    const read = earlyModuleFile(argv, '/work');
    assert.ok(read === undefined || read === resolve('/work', named ?? ''), `${argv.join(' ')}: read ${read}, the command uses ${named}`);
  }
  assert.is(earlyModuleFile(['generate', '--extension', './a.wasm', '--input', 'ir.json', '--extension', './b.wasm'], '/work'), '/work/b.wasm');
  assert.not.ok(opensWasmSession(['compile', 'model', '--extension', './a.wasm', '--extension', './b.mjs']), 'the last --extension is a process extension');
});

EarlyStart.run();
