import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadWatFixture, watToWasm } from '../../../../../fixtures/wasm/compile.ts';
import { ErrorCode, isMepError, LocalErrorCode } from '../../../protocol/errors.ts';
import { identityOf } from '../../../registry/module-file.ts';
import { POOLED_MEMORY_MODULE } from '../memory-import.ts';
import { checkGuestModule, compileExtensionModule, memoryCapOf } from '../module.ts';
import { startWorkerThread, type WorkerThread } from './early-thread.ts';
import { compileOnThread, forgetModuleOnHost, readModuleOnHost } from './file-module.ts';
import { workerUrl } from './spawner.ts';

/** The echo guest with a custom section of random bytes: a module no other test has compiled (the compile cache is per process). */
function uniqueModule(): Uint8Array {
  const payload = Buffer.concat([Buffer.from([4]), Buffer.from('mep!'), randomBytes(16)]);
  return Buffer.concat([loadWatFixture('echo'), Buffer.from([0, payload.length]), payload]);
}

const MIB = 1024 * 1024;
const test = suite('a module prepared from its file on a wasm worker thread (issue 32)');
let root = '';
let thread: WorkerThread | undefined;
test.before.each(async () => {
  root = mkdtempSync(join(tmpdir(), 'mep-file-module-'));
  thread = startWorkerThread(await workerUrl());
});
test.after.each(async () => {
  await thread?.worker.terminate();
  rmSync(root, { recursive: true, force: true });
});

test('should hand the host the module it would compile itself for the same bytes and memory cap', async () => {
  const bytes = uniqueModule();
  const path = join(root, 'guest.wasm');
  writeFileSync(path, bytes);
  const module = await compileOnThread(thread as WorkerThread, { path, name: 'guest.wasm', limits: { maxMemoryBytes: 64 * MIB } });
  assert.instance(module, WebAssembly.Module);
  assert.is(memoryCapOf(module), 1024, 'its memory capped as the host caps it');
  // Taken in as compiled here: the host's own compile of these bytes under this cap is this module.
  assert.is(await compileExtensionModule(bytes, { name: 'guest.wasm', limits: { maxMemoryBytes: 64 * MIB } }), module);
  assert.equal(WebAssembly.Module.exports(module).map((e) => e.name).sort(), WebAssembly.Module.exports(await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>)).map((e) => e.name).sort());
});

test('should refuse a bad module on the worker with the error the host refuses it with', async () => {
  const cases: [string, Uint8Array, { maxMemoryBytes?: number; maxModuleBytes?: number }][] = [
    ['broken.wasm', Buffer.from('\0asm\x01\0\0\0\x05garbage'), {}],
    ['not-wasm.wasm', Buffer.from('just text, no module'), {}],
    ['truncated.wasm', uniqueModule().subarray(0, 40), {}],
    // A memory of 2 pages at start, above a cap of 1 page: ERR_LIMIT naming maxMemoryBytes.
    ['too-much-memory.wasm', Buffer.from('\0asm\x01\0\0\0\x05\x03\x01\x00\x02', 'latin1'), { maxMemoryBytes: 65_536 }],
  ];
  for (const [name, bytes, limits] of cases) {
    const path = join(root, name);
    writeFileSync(path, bytes);
    const onWorker = await compileOnThread(thread as WorkerThread, { path, name, limits }).then(() => undefined, (e: unknown) => e);
    const onHost = await compileExtensionModule(readFileSync(path), { name, limits }).then(() => undefined, (e: unknown) => e);
    assert.ok(isMepError(onHost), `${name}: the host refuses it (${String(onHost)})`);
    assert.ok(isMepError(onWorker), `${name}: the worker refuses it (${String(onWorker)})`);
    assert.equal({ code: onWorker.code, message: onWorker.message, data: onWorker.data }, { code: onHost.code, message: onHost.message, data: onHost.data }, name);
  }
  // Above the module size bound: refused by its size before it is read, as the launch's read refuses it.
  const path = join(root, 'big.wasm');
  writeFileSync(path, uniqueModule());
  const big = await compileOnThread(thread as WorkerThread, { path, name: 'big.wasm', limits: { maxModuleBytes: 16 } }).then(() => undefined, (e: unknown) => e);
  assert.ok(isMepError(big) && big.code === LocalErrorCode.Limit && (big.data as { limit?: unknown }).limit === 'maxModuleBytes', String(big));
});

test('should refuse a module whose file imports the pool\'s memory itself, as the host\'s own compile refuses it :: -32012', async () => {
  // A guest that names the pool's import in its own bytes: the host did not make that import, so
  // it must not be handed a recycled memory, however it was prepared (the worker's answer was
  // taken in by the import's name alone).
  const wat = `(module (import "extism:host/env" "input_length" (func (result i64))) (import "${POOLED_MEMORY_MODULE}" "1:16:unshared" (memory 1 16))
    (export "memory" (memory 0)) (func (export "handle") (result i32) (i32.const 0)))`;
  const path = join(root, 'imports-pool.wasm');
  writeFileSync(path, watToWasm(wat, 'imports-pool'));
  const onWorker = await compileOnThread(thread as WorkerThread, { path, name: 'imports-pool.wasm', limits: { maxMemoryBytes: 64 * MIB } });
  const onHost = await compileExtensionModule(readFileSync(path), { name: 'imports-pool.wasm', limits: { maxMemoryBytes: 64 * MIB } });
  for (const [where, module] of [['worker', onWorker], ['host', onHost]] as const) {
    const refused = (() => {
      try {
        checkGuestModule(module, 'imports-pool.wasm');
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    assert.ok(isMepError(refused) && refused.code === ErrorCode.PermissionDenied && /mep:memory/.test(refused.message), `${where}: ${String(refused)}`);
  }
});

test('should reject, not hang, when the thread ends before it answers', async () => {
  const path = join(root, 'guest.wasm');
  writeFileSync(path, uniqueModule());
  const asked = compileOnThread(thread as WorkerThread, { path, name: 'guest.wasm', limits: {} });
  await thread?.worker.terminate();
  const error = await asked.then(() => undefined, (e: unknown) => e);
  assert.ok(isMepError(error) && error.code === LocalErrorCode.ExtensionCrashed, String(error));
});

test('should move the bytes the host read to the thread when they are of the file its stat saw: the file gone since still compiles from them', async () => {
  const bytes = uniqueModule();
  const path = join(root, 'ahead.wasm');
  writeFileSync(path, bytes);
  const identity = identityOf(statSync(path));
  await readModuleOnHost(path);
  // A read on the thread now would fail: the module can only come from the bytes the host read.
  rmSync(path);
  const module = await compileOnThread(thread as WorkerThread, { path, name: 'ahead.wasm', limits: {}, identity });
  assert.is(await compileExtensionModule(bytes, { name: 'ahead.wasm', limits: {} }), module, 'the module of the bytes the host read');
});

test('should let go of the bytes the host read once told nothing will ask for them', async () => {
  const path = join(root, 'forgotten.wasm');
  writeFileSync(path, uniqueModule());
  const identity = identityOf(statSync(path));
  await readModuleOnHost(path);
  forgetModuleOnHost();
  rmSync(path);
  const error = await compileOnThread(thread as WorkerThread, { path, name: 'forgotten.wasm', limits: {}, identity }).then(() => undefined, (e: unknown) => e);
  assert.ok(isMepError(error) && (error.data as { reason?: unknown }).reason === 'missing', String(error));
});

test('should not move bytes the host read from a file written since its stat: the thread reads the file the host saw, or refuses', async () => {
  const path = join(root, 'rewritten.wasm');
  writeFileSync(path, uniqueModule());
  await readModuleOnHost(path);
  // Written after the host's read, before its stat (the key it offers the module under).
  writeFileSync(path, Buffer.concat([uniqueModule(), Buffer.from([0, 1, 0])]));
  const written = readFileSync(path);
  const module = await compileOnThread(thread as WorkerThread, { path, name: 'rewritten.wasm', limits: {}, identity: identityOf(statSync(path)) });
  assert.is(await compileExtensionModule(written, { name: 'rewritten.wasm', limits: {} }), module, 'the module of the bytes the host saw');
  // And a host whose look at the file is not the file there now: refused, nothing compiled.
  const stale = { ...identityOf(statSync(path)), ctimeMs: 1 };
  const refused = await compileOnThread(thread as WorkerThread, { path, name: 'rewritten.wasm', limits: {}, identity: stale }).then(() => undefined, (e: unknown) => e);
  assert.ok(isMepError(refused) && refused.code === LocalErrorCode.Usage && (refused.data as { reason?: unknown }).reason === 'changed', String(refused));
});

/** Runs `script` (an ES module, through tsx) in a fresh node; resolves with its exit code and output, or "hung" after 60 s. */
function runNode(script: string, cwd: string): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
  const repo = fileURLToPath(new URL('../../../../../', import.meta.url));
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', new URL('node_modules/tsx/dist/esm/index.mjs', `file://${repo}`).href, '--input-type=module', '-e', script], { cwd, env: { ...process.env, MEP_HOME: join(cwd, 'home'), TSX_TSCONFIG_PATH: join(repo, 'tsconfig.json') }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { killed?: boolean }).killed ? 'hung' : ((error as { code?: number | string }).code ?? 1)) : 0, stdout, stderr });
    });
  });
}

test('should give the pool the early thread, run the session on it, and leave no thread behind at exit', async () => {
  const dir = join(root, 'project');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'morphir.json'), JSON.stringify({ name: 'My.Pack', sourceDirectory: 'src' }));
  writeFileSync(join(dir, 'src', 'Big.elm'), 'module Big exposing (..)\n' + '-- padding\n'.repeat(6000));
  writeFileSync(join(root, 'guest.wasm'), uniqueModule());
  const src = (file: string): string => JSON.stringify(new URL(`../../../${file}`, import.meta.url).href);
  // The command's order (cli/early-start.ts): the thread, the pool's prestart, the early compile; then the session.
  const script = `
    const { startEarlyWorkerThread, takeEarlyWorkerThread } = await import(${src('transport/wasm/node/early-thread.ts')});
    const { workerUrl, prestartNodeWasmWorker, sharedNodeWasmSpawner } = await import(${src('transport/wasm/node/spawner.ts')});
    const { workerPoolOf } = await import(${src('transport/wasm/worker-pool.ts')});
    const { startCompile } = await import(${src('cli/early-compile.ts')});
    const { openTransport, specOfFile } = await import(${src('registry/launch.ts')});
    const { memoryCapOf } = await import(${src('transport/wasm/module.ts')});
    const thread = startEarlyWorkerThread(await workerUrl());
    (await import(${src('transport/wasm/node/file-module.ts')})).readModuleOnHost(${JSON.stringify(join(root, 'guest.wasm'))});
    void prestartNodeWasmWorker();
    const module = await (await startCompile(['compile', 'project', '--extension', './guest.wasm', '--max-memory', '64MiB'])).module;
    const transport = await openTransport(specOfFile(${JSON.stringify(join(root, 'guest.wasm'))}, { maxMemoryBytes: 64 * 1024 * 1024 }));
    await transport.close();
    console.log(JSON.stringify({ early: thread !== undefined, taken: takeEarlyWorkerThread() === undefined, cap: memoryCapOf(module), started: workerPoolOf(sharedNodeWasmSpawner()).stats().started }));
  `;
  const run = await runNode(script, root);
  assert.is(run.code, 0, run.stderr);
  // One thread in all: the early one, taken by the pool; the module came from it (capped); and the
  // process ended by itself once the session closed (a thread left holding it would have hung it).
  assert.equal(JSON.parse(run.stdout.trim().split('\n').pop() as string), { early: true, taken: true, cap: 1024, started: 1 });
  // A thread started early that nothing used does not hold the process either.
  const unused = await runNode(`const { startEarlyWorkerThread } = await import(${src('transport/wasm/node/early-thread.ts')}); const { workerUrl } = await import(${src('transport/wasm/node/spawner.ts')}); console.log(startEarlyWorkerThread(await workerUrl()) !== undefined);`, root);
  assert.equal({ code: unused.code, out: unused.stdout.trim() }, { code: 0, out: 'true' }, unused.stderr);
});

test('should have posted its request, with the bytes the host read and their sha256, by the time the early compile returns (the command loads next)', async () => {
  const dir = join(root, 'project');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'morphir.json'), JSON.stringify({ name: 'My.Pack', sourceDirectory: 'src' }));
  // Above the baseline tier's bound: this process keeps V8's default tiering.
  writeFileSync(join(dir, 'src', 'Big.elm'), 'module Big exposing (..)\n' + '-- padding\n'.repeat(6000));
  // 24 MiB of custom section: the host's read of it outlasts the early compile's own small reads.
  const payload = Buffer.concat([Buffer.from([4]), Buffer.from('mep!'), randomBytes(24 * MIB)]);
  const leb = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...leb(n >>> 7)]);
  const module = Buffer.concat([loadWatFixture('echo'), Buffer.from([0, ...leb(payload.length)]), payload]);
  writeFileSync(join(root, 'guest.wasm'), module);
  const sha256 = createHash('sha256').update(module).digest('hex');
  const src = (file: string): string => JSON.stringify(new URL(`../../../${file}`, import.meta.url).href);
  const script = `
    const { startEarlyWorkerThread } = await import(${src('transport/wasm/node/early-thread.ts')});
    const { workerUrl } = await import(${src('transport/wasm/node/spawner.ts')});
    const { startCompile } = await import(${src('cli/early-compile.ts')});
    const thread = startEarlyWorkerThread(await workerUrl());
    const posted = [];
    const post = thread.port.postMessage.bind(thread.port);
    thread.port.postMessage = (message, transfer) => { posted.push(message.type + (message.bytes === undefined ? '' : ' with bytes') + (message.sha256 === ${JSON.stringify(sha256)} ? ' and their sha256' : '')); return post(message, transfer); };
    void (await import(${src('transport/wasm/node/file-module.ts')})).readModuleOnHost(${JSON.stringify(join(root, 'guest.wasm'))});
    const started = await startCompile(['compile', 'project', '--extension', './guest.wasm']);
    const atReturn = [...posted];
    const { memoryCapOf } = await import(${src('transport/wasm/module.ts')});
    const compiled = memoryCapOf(await started.module) !== undefined;
    console.log(JSON.stringify({ atReturn, compiled }));
    await thread.worker.terminate();
  `;
  const run = await runNode(script, root);
  assert.is(run.code, 0, run.stderr);
  // The bytes hashed as they were read: the thread does not hash them again.
  assert.equal(JSON.parse(run.stdout.trim().split('\n').pop() as string), { atReturn: ['compile-file with bytes and their sha256'], compiled: true });
});

test.run();
