import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compiledWasmModule, specOfFile } from '../registry/launch.ts';
import { earlyInputOperationOf, startOperation } from './early-operation.ts';
import { readInput } from './input-ahead.ts';
import { freshFolderEach, uniqueModule } from './testing/early-start.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const IR = JSON.stringify({ formatVersion: 3, distribution: ['Library', [], [], {}] });
const early = suite('early start of generate, validate and transform on a .wasm file');
let root = '';
freshFolderEach(early, 'mep-early-op-', (dir) => {
  root = dir;
  writeFileSync(join(root, 'guest.wasm'), uniqueModule());
  writeFileSync(join(root, 'ir.json'), IR);
});

early('should read a generate, validate or transform line with the command\'s own table, and nothing the command would refuse', () => {
  const found = earlyInputOperationOf(['generate', '--extension', './avro.wasm', '--target', 'avro', '--input', 'ir.json', '--output', 'out', '--json', '--max-memory', '64MiB']);
  assert.equal(found && { extension: found.extension, input: found.input, memory: found.values['max-memory'] }, { extension: './avro.wasm', input: 'ir.json', memory: '64MiB' });
  assert.is(earlyInputOperationOf(['validate', '--input=ir.json', '--extension=/abs/V.WASM'])?.extension, '/abs/V.WASM');
  assert.is(earlyInputOperationOf(['transform', '--input', 'ir.json', '--output', 'o.json', '--extension', './t.wasm'])?.input, 'ir.json');
  for (const argv of [
    ['compile', 'model', '--extension', './elm.wasm'],
    ['generate', '--extension', './avro.wasm', '--input', 'ir.json'], // no --output
    ['transform', '--extension', './t.wasm', '--input', 'ir.json'],
    ['generate', '--extension', './avro.wasm', '--input', 'ir.json', '--output', 'out', 'stray'],
    ['generate', '--extension', './avro.wasm', '--input', 'ir.json', '--output', 'out', '--bogus'],
    ['generate', '--extension', './avro.wasm', '--input', 'ir.json', '--output', 'out', '--help'],
    ['generate', '--extension', './avro.wasm', '--input', '--output', 'out'],
    ['generate', '--extension', 'avro', '--input', 'ir.json', '--output', 'out'],
    ['generate', '--extension', './avro.mjs', '--input', 'ir.json', '--output', 'out'],
    ['validate', '--extension', './v.wasm', '--input', 'ir.json', '--target', 'x'],
    ['serve', '--extension', './v.wasm'],
  ]) {
    assert.is(earlyInputOperationOf(argv), undefined, argv.join(' '));
  }
});

early('should read the input ahead for the command and hand its launch the module compiled early', async () => {
  const argv = ['generate', '--extension', './guest.wasm', '--input', 'ir.json', '--output', 'out', '--max-memory', '64MiB'];
  const started = await startOperation(argv, root);
  assert.ok(started, 'started');
  const warmed = await started?.module;
  assert.instance(warmed, WebAssembly.Module);
  // The command's launch takes that module (the same flags, the same file).
  assert.is(await compiledWasmModule(specOfFile(join(root, 'guest.wasm'), { maxMemoryBytes: 64 * 1024 * 1024 })), warmed);
  // Written after the early read: the command takes what was read (as if it had read it then), once.
  writeFileSync(join(root, 'ir.json'), '{"later": true}');
  assert.is(String(await readInput(join(root, 'ir.json'))), IR);
  assert.is(String(await readInput(join(root, 'ir.json'))), '{"later": true}');
});

early('should have the command read again, and report what it finds, when the read ahead failed or was of another file', async () => {
  rmSync(join(root, 'ir.json'));
  await startOperation(['generate', '--extension', './guest.wasm', '--input', 'ir.json', '--output', 'out'], root);
  writeFileSync(join(root, 'ir.json'), IR);
  assert.is(String(await readInput(join(root, 'ir.json'))), IR, 'missing ahead, there now');
  mkdirSync(join(root, 'dir.json'));
  await startOperation(['validate', '--extension', './guest.wasm', '--input', 'dir.json'], root);
  const ahead = await readInput(join(root, 'dir.json')).then(() => undefined, (e: Error) => e.message);
  const plain = await readInput(join(root, 'dir.json')).then(() => undefined, (e: Error) => e.message);
  assert.ok(ahead !== undefined && ahead === plain, `${ahead} / ${plain}`);
  await startOperation(['validate', '--extension', './guest.wasm', '--input', 'ir.json'], root);
  writeFileSync(join(root, 'other.json'), '[]');
  assert.is(String(await readInput(join(root, 'other.json'))), '[]');
});

early('should start nothing and never reject for a missing, broken or oversized module', async () => {
  writeFileSync(join(root, 'broken.wasm'), Buffer.from('\0asm\x01\0\0\0\x05garbage'));
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    assert.is(await startOperation(['generate', '--extension', './missing.wasm', '--input', 'ir.json', '--output', 'out'], root), undefined);
    for (const argv of [
      ['generate', '--extension', './broken.wasm', '--input', 'ir.json', '--output', 'out'],
      ['generate', '--extension', './guest.wasm', '--input', 'ir.json', '--output', 'out', '--max-module', '16'],
    ]) {
      assert.is(await (await startOperation(argv, root))?.module.catch(() => undefined), undefined, argv.join(' '));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.equal(unhandled, []);
});

early('should leave a bad command line to the command, reported as without an early start', async () => {
  const run = (...args: string[]) => promisify(execFile)(process.execPath, [join(repo, 'bin/mep.mjs'), 'generate', '--extension', './guest.wasm', ...args], { cwd: root, env: { ...process.env } }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  // The messages of the command as it was before the early start read generate's lines (dist/ of main, the same lines).
  assert.equal(await run('--input', 'ir.json', '--output', 'out', '--bogus'), { code: 2, stderr: "mep generate: Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--bogus\". Run 'mep generate --help'.\n" });
  assert.equal(await run('--input', 'ir.json'), { code: 2, stderr: "mep generate: --output is required. Run 'mep generate --help'.\n" });
  assert.equal(await run('--input', 'missing.json', '--output', 'out'), { code: 2, stderr: `mep generate: Cannot read the input ${join(root, 'missing.json')}: missing. Pass a Morphir IR file (morphir-ir.json) with --input.\n` });
  assert.equal(await run('--input', 'ir.json', '--output', 'ir.json'), { code: 2, stderr: `mep generate: Cannot write artifacts to ${join(root, 'ir.json')}: it is a file, not a directory. Choose a directory (it is created when missing).\n` });
  assert.not.ok(readdirSync(root).includes('out'), 'nothing written');
});

early.run();
