import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../protocol/errors.ts';
import { compiledWasmModule, openTransport, specFromPath, specOfFile } from '../registry/launch.ts';
import { moduleFileKey, takeModuleAhead } from '../registry/module-file.ts';
import { compileExtensionModule, memoryCapOf } from '../transport/wasm/module.ts';
import { prestartNodeWasmWorker, sharedNodeWasmSpawner } from '../transport/wasm/node/spawner.ts';
import { workerPoolOf } from '../transport/wasm/worker-pool.ts';
import { createTestClient } from '../../../fixtures/wasm/test-client.ts';
import { parseGrantFlags } from './commands/grant-flags.ts';
import { parseLimitFlags } from './commands/limit-flags.ts';
import { earlyCompileOf, warmCompile } from './early-compile.ts';
import { freshFolderEach, uniqueModule } from './testing/early-start.ts';

/** A project whose sources are above the baseline tier's bound, so V8's flags stay as they are in this process. */
function project(root: string): string {
  const dir = join(root, 'project');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'morphir.json'), JSON.stringify({ name: 'My.Pack', sourceDirectory: 'src' }));
  writeFileSync(join(dir, 'src', 'Big.elm'), 'module Big exposing (..)\n' + '-- padding\n'.repeat(6000));
  return dir;
}

const early = suite('early compile (mep compile <project> --extension <file>.wasm)');
let root = '';
freshFolderEach(early, 'mep-early-', (dir) => void (root = dir));

early('should read a compile of one folder with a .wasm written as a path, with the command\'s own flag table', () => {
  const found = earlyCompileOf(['compile', 'model', '--extension', './elm.wasm', '--max-memory', '64MiB', '--output', 'ir.json', '--verbose']);
  assert.equal(found && { project: found.project, extension: found.extension, memory: found.values['max-memory'] }, { project: 'model', extension: './elm.wasm', memory: '64MiB' });
  assert.is(earlyCompileOf(['compile', '--extension=/abs/ELM.WASM', '.'])?.extension, '/abs/ELM.WASM');
  for (const argv of [
    ['generate', '--extension', './avro.wasm', '--input', 'ir.json'],
    ['compile', 'model', '--extension', 'elm.wasm'], // a bare name is an installed id
    ['compile', 'model', '--extension', './elm.mjs'],
    ['compile', 'model'],
    ['compile', 'A.elm', 'B.elm', '--extension', './elm.wasm'],
    ['compile', 'model', '--extension', './elm.wasm', '--watch'],
    ['compile', 'model', '--extension', './elm.wasm', '--help'],
    ['compile', 'model', '--extension', './elm.wasm', '--no-such-flag'],
    ['compile', '--output', '--extension', './elm.wasm'],
  ]) {
    assert.is(earlyCompileOf(argv), undefined, argv.join(' '));
  }
});

early('should leave in the compile cache the module the command then gets for the same bytes and memory cap', async () => {
  const dir = project(root);
  const bytes = uniqueModule();
  writeFileSync(join(root, 'guest.wasm'), bytes);
  const warmed = await warmCompile(['compile', 'project', '--extension', './guest.wasm', '--max-memory', '64MiB'], root);
  assert.instance(warmed, WebAssembly.Module);
  assert.is(memoryCapOf(warmed as WebAssembly.Module), 1024);
  // What registry/launch.ts asks for: the bytes it read and hashed itself, the cap from the same flag.
  assert.is(await compileExtensionModule(bytes, { name: 'guest.wasm', limits: { maxMemoryBytes: 64 * 1024 * 1024 } }), warmed);
  // Another cap is another module: nothing early is taken for it.
  assert.is.not(await compileExtensionModule(bytes, { name: 'guest.wasm' }), warmed);
  assert.ok(dir);
});

early('should hand the launch the module compiled early while the file is unchanged, and not after a write', async () => {
  project(root);
  const path = join(root, 'guest.wasm');
  writeFileSync(path, uniqueModule());
  const limits = { maxMemoryBytes: 64 * 1024 * 1024 };
  const warmed = await warmCompile(['compile', 'project', '--extension', './guest.wasm', '--max-memory', '64MiB'], root);
  assert.instance(warmed, WebAssembly.Module);
  assert.is(await compiledWasmModule(specFromPath(path, { limits })), warmed);
  // Taken from the offer (not read and hashed again): it is gone once taken.
  assert.is(takeModuleAhead(moduleFileKey(path, statSync(path), limits.maxMemoryBytes, undefined)), undefined);
  // Written since the early read: the launch reads and compiles the file as it is now.
  const again = await warmCompile(['compile', 'project', '--extension', './guest.wasm'], root);
  writeFileSync(path, Buffer.concat([uniqueModule(), Buffer.from([0, 1, 0])]));
  const launched = await compiledWasmModule(specFromPath(path));
  assert.instance(launched, WebAssembly.Module);
  assert.is.not(launched, again);
});

early('should let the launch report its own error when the early compile failed', async () => {
  project(root);
  writeFileSync(join(root, 'broken.wasm'), Buffer.from('\0asm\x01\0\0\0\x05garbage'));
  assert.is(await warmCompile(['compile', 'project', '--extension', './broken.wasm'], root), undefined);
  const error = await compiledWasmModule(specFromPath(join(root, 'broken.wasm'))).then(() => undefined, (e: unknown) => e);
  assert.ok(isMepError(error) && error.code === LocalErrorCode.Usage, String(error));
  assert.match((error as Error).message, 'Wasm extension "broken.wasm" is not a valid WebAssembly module');
});

early('should start nothing and never reject for a broken module, an oversized one, or a folder that is no project', async () => {
  project(root);
  writeFileSync(join(root, 'broken.wasm'), Buffer.from('\0asm\x01\0\0\0\x05garbage'));
  writeFileSync(join(root, 'guest.wasm'), uniqueModule());
  mkdirSync(join(root, 'empty'));
  const cases = [
    ['compile', 'project', '--extension', './broken.wasm'],
    ['compile', 'project', '--extension', './guest.wasm', '--max-module', '16'],
    ['compile', 'empty', '--extension', './guest.wasm'],
    ['compile', 'project', '--extension', './missing.wasm'],
    ['compile', 'project', '--extension', './guest.wasm', '--max-memory', 'lots'],
  ];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    for (const argv of cases) assert.is(await warmCompile(argv, root), undefined, argv.join(' '));
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.equal(unhandled, []);
});

early('should have the prestarted worker instantiate the module for the session the command opens, on no other thread', async () => {
  project(root);
  writeFileSync(join(root, 'guest.wasm'), uniqueModule());
  const argv = ['compile', 'project', '--extension', './guest.wasm', '--max-memory', '64MiB', '--call-timeout', '20s', '--allow-clock'];
  const pool = workerPoolOf(sharedNodeWasmSpawner());
  const before = pool.stats().started;
  await prestartNodeWasmWorker();
  const warmed = await warmCompile(argv, root);
  assert.instance(warmed, WebAssembly.Module);
  // The warm runs on once the module is compiled (the launch module loads, the thread is asked).
  await new Promise((resolve) => setTimeout(resolve, 300));
  // The session as the command opens it: the spec of the --extension path with the same flags.
  const values = earlyCompileOf(argv)?.values ?? {};
  const transport = await openTransport(specOfFile(join(root, 'guest.wasm'), parseLimitFlags(values), parseGrantFlags(values)));
  try {
    assert.is((await createTestClient(transport).request(1, 'ping', 'early')).result, 'early');
  } finally {
    await transport.close();
  }
  // A key that differed would have sent the session to a new thread (the prepared one is not re-prepared).
  assert.is(pool.stats().started - before, 1, 'one thread: the prestarted one, prepared early and taken by the session');
});

early.run();
