import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { watToWasm } from '../../../../fixtures/wasm/compile.ts';
import { createExtismEngine } from './index.ts';
import { resolveWasmLimits } from './limits.ts';
import { compileExtensionModule } from './module.ts';
import { emptyMemoryPool, MEMORY_POOL_LIMITS, memoryPoolSize } from './memory-pool.ts';
import type { WasmEngine } from './engine.ts';

/** A guest of one page whose `handle` runs `body` (an Extism kernel import keeps it an Extism guest). */
const guest = (name: string, body: string, data = '', imports = '', result = 0): Promise<WebAssembly.Module> =>
  compileExtensionModule(
    watToWasm(`(module (import "extism:host/env" "input_length" (func (result i64))) ${imports}
      (memory (export "memory") 1) ${data}
      (func (export "handle") (result i32) ${body} (i32.const ${result})))`, `pool-${name}`),
    { name },
  );
/** Writes a marker beyond its data, and over where the reader's data segment lies. */
const WRITER = '(i32.store (i32.const 40000) (i32.const 0x4d4d4d4d)) (i32.store8 (i32.const 2048) (i32.const 0xff))';
/** Traps unless the marker is gone and its own data segment (`B` at 2048) is there. */
const READER = '(if (i32.load (i32.const 40000)) (then unreachable)) (if (i32.ne (i32.load8_u (i32.const 2048)) (i32.const 66)) (then unreachable))';

const engine = (module: WebAssembly.Module, name: string, timeoutMs = 5_000): Promise<WasmEngine> =>
  createExtismEngine(module, {
    name,
    limits: { ...resolveWasmLimits(name, {}), callTimeoutMs: timeoutMs },
    grants: {},
    interruptFlag: new Int32Array(1),
    bridge: { notify: () => undefined, artifact: () => undefined, request: () => null, log: () => undefined },
  });
const run = async (module: WebAssembly.Module, name: string, timeoutMs = 5_000): Promise<{ ok: boolean; message?: string }> => {
  const e = await engine(module, name, timeoutMs);
  const outcome = await e.call(new Uint8Array(1), timeoutMs);
  await e.close();
  return outcome.ok ? { ok: true } : { ok: false, message: outcome.error.message };
};

const pool = suite('recycled guest memory');
pool.before.each(() => emptyMemoryPool());

pool('should hand the next instance of a DIFFERENT module a zeroed memory, its own data segments written again :: security', async () => {
  const writer = await guest('writer', WRITER);
  const reader = await guest('reader', READER, '(data (i32.const 2048) "B")');
  assert.equal(await run(writer, 'writer'), { ok: true });
  assert.equal(memoryPoolSize().memories, 1, 'the writer\'s memory went back to the pool');
  assert.equal(await run(reader, 'reader'), { ok: true }, 'the reader saw the writer\'s marker or lost its own data');
  assert.equal(memoryPoolSize().memories, 1, 'the reader ran on the recycled memory and gave it back');
});

pool('should not recycle a memory that grew, nor one whose instance trapped (a deadline or a limit takes the same path: a failure not the guest\'s own)', async () => {
  assert.equal(await run(await guest('grower', '(drop (memory.grow (i32.const 1)))'), 'grower'), { ok: true });
  assert.equal(memoryPoolSize().memories, 0, 'grown');
  const trapped = await run(await guest('trapper', 'unreachable'), 'trapper');
  assert.is(trapped.ok, false);
  assert.equal(memoryPoolSize().memories, 0, 'trapped');
});

pool('should keep at most MEMORY_POOL_LIMITS.memories memories, and none above its bytes', async () => {
  const module = await guest('many', '');
  const engines = await Promise.all(Array.from({ length: MEMORY_POOL_LIMITS.memories + 2 }, () => engine(module, 'many')));
  for (const e of engines) await e.close();
  assert.equal(memoryPoolSize(), { memories: MEMORY_POOL_LIMITS.memories, bytes: MEMORY_POOL_LIMITS.memories * 65_536 });
  emptyMemoryPool();
  const pages = MEMORY_POOL_LIMITS.bytes / 65_536 + 1;
  const big = await compileExtensionModule(watToWasm(`(module (import "extism:host/env" "input_length" (func (result i64))) (memory (export "memory") ${pages}) (func (export "handle") (result i32) (i32.const 0)))`, 'pool-big'), { name: 'big' });
  await (await engine(big, 'big')).close();
  assert.equal(memoryPoolSize(), { memories: 0, bytes: 0 });
});

pool('should refuse a call after close, and not give the memory back twice', async () => {
  const module = await guest('closed', '');
  const e = await engine(module, 'closed');
  await e.close();
  await e.close();
  assert.equal(memoryPoolSize().memories, 1);
  const outcome = await e.call(new Uint8Array(1), 1_000);
  assert.is(outcome.ok, false);
});

pool('should not lend again a memory its guest left at a deadline or a host function\'s refusal, and zero a guest error\'s or a close during a call\'s :: security', async () => {
  const reader = await guest('reader', READER, '(data (i32.const 2048) "B")');
  const spin = '(loop $spin (br_if $spin (i32.eqz (call $interrupt))))';
  const exits = [
    { name: 'deadline', timeoutMs: 50, kept: 0, module: await guest('deadline', `${WRITER} ${spin}`, '', '(import "extism:host/user" "mep_interrupt" (func $interrupt (result i32)))', 1) },
    { name: 'host-refusal', timeoutMs: 5_000, kept: 0, module: await guest('host-refusal', `${WRITER} (call $output_set (i64.const 123456) (i64.const 8))`, '', '(import "extism:host/env" "output_set" (func $output_set (param i64 i64)))') },
    { name: 'guest-error', timeoutMs: 5_000, kept: 1, module: await guest('guest-error', `${WRITER} (call $error_set (call $alloc (i64.const 1)))`, '', '(import "extism:host/env" "alloc" (func $alloc (param i64) (result i64))) (import "extism:host/env" "error_set" (func $error_set (param i64)))', 1) },
  ];
  for (const exit of exits) {
    emptyMemoryPool();
    // The deadline's guest polled and returned: the engine's outcome is ok, its interrupt a deadline (the runtime's timeout).
    const outcome = await run(exit.module, exit.name, exit.timeoutMs);
    assert.is(outcome.ok, exit.name === 'deadline', exit.name);
    assert.equal(memoryPoolSize().memories, exit.kept, `${exit.name}: ${outcome.message}`);
    assert.equal(await run(reader, 'reader'), { ok: true }, `${exit.name}: the reader saw the marker`);
  }
  emptyMemoryPool();
  const writer = await engine(await guest('writer', WRITER), 'writer');
  const call = writer.call(new Uint8Array(1), 5_000);
  await writer.close();
  await call;
  assert.equal(await run(reader, 'reader'), { ok: true }, 'closed during a call: the reader saw the marker');
});

pool.run();
