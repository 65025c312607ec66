import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { watToWasm } from '../../../../fixtures/wasm/compile.ts';
import { capSections, MemoryCapError } from './memory-cap.ts';
import { capSectionsImportingMemory, POOLED_MEMORY_MODULE, pooledMemoryOf } from './memory-import.ts';
import { checkGuestModule, compileExtensionModule } from './module.ts';
import { ErrorCode } from '../../protocol/errors.ts';

const KERNEL = '(import "extism:host/env" "input_length" (func (result i64)))';
const guest = (memory: string, imports = KERNEL): string => `(module ${imports} ${memory}
  (global (export "g") i32 (i32.const 7))
  (data (i32.const 1024) "hello")
  (func (export "handle") (result i32) (i32.load8_u (i32.const 1024))))`;
const compile = (bytes: Uint8Array): WebAssembly.Module => new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);

const rewrite = suite('capSectionsImportingMemory');
rewrite('should turn the one defined memory into an import of the capped limits, index 0 and everything else unchanged', () => {
  const bytes = watToWasm(guest('(memory (export "memory") 2 100)'), 'recycle-one');
  const out = capSectionsImportingMemory(bytes, 64, 1000, true);
  assert.equal(out.memory, { initial: 2, maximum: 64, shared: true });
  assert.equal(out.minPages, 2);
  const module = compile(out.bytes);
  assert.equal(WebAssembly.Module.imports(module), [
    { module: 'extism:host/env', name: 'input_length', kind: 'function' },
    { module: POOLED_MEMORY_MODULE, name: '2:64:shared', kind: 'memory' },
  ]);
  assert.equal(WebAssembly.Module.exports(module), WebAssembly.Module.exports(compile(bytes)));
  assert.equal(pooledMemoryOf(module), out.memory);
  // The data segment lands in the memory given, which the instance exports as its own.
  const memory = new WebAssembly.Memory({ initial: 2, maximum: 64, shared: true });
  const instance = new WebAssembly.Instance(module, { 'extism:host/env': { input_length: () => 0n }, [POOLED_MEMORY_MODULE]: { '2:64:shared': memory } });
  assert.is(instance.exports.memory, memory);
  assert.is((instance.exports.handle as () => number)(), 'h'.charCodeAt(0));
  // Unshared where the platform has no shared memory; a minimum above the cap is refused as before.
  assert.equal(capSectionsImportingMemory(bytes, 64, 1000, false).memory, { initial: 2, maximum: 64, shared: false });
  assert.throws(() => capSectionsImportingMemory(bytes, 1, 1000), (e: unknown) => e instanceof MemoryCapError && e.reason === 'min-above-cap');
});
rewrite('should rewrite in place with room before the bytes, as capSections does', () => {
  const bytes = watToWasm(guest('(memory (export "memory") 1)'), 'recycle-room');
  const copy = capSectionsImportingMemory(bytes, 16, 1000, true);
  const room = new Uint8Array(64 + bytes.length);
  room.set(bytes, 64);
  const inPlace = capSectionsImportingMemory(room.subarray(64), 16, 1000, true, 64);
  assert.is(inPlace.bytes.buffer, room.buffer);
  assert.equal([...inPlace.bytes], [...copy.bytes]);
});
rewrite('should leave a module without a memory, importing one, or with two, as capSections leaves it', () => {
  const cases = {
    'no memory': watToWasm(`(module ${KERNEL} (func (export "handle") (result i32) (i32.const 0)))`, 'recycle-none'),
    'imported memory': watToWasm(guest('', `${KERNEL} (import "env" "memory" (memory 1))`), 'recycle-imported'),
    'no import section': watToWasm('(module (memory (export "memory") 1) (func (export "handle") (result i32) (i32.const 0)))', 'recycle-no-imports'),
    'shared memory': watToWasm(`;; wat2wasm: --enable-threads\n${guest('(memory (export "memory") 1 2 shared)')}`, 'recycle-shared'),
    'two memories': watToWasm(`;; wat2wasm: --enable-multi-memory\n${guest('(memory (export "memory") 1) (memory 1)')}`, 'recycle-two'),
  };
  for (const [what, bytes] of Object.entries(cases)) {
    const out = capSectionsImportingMemory(bytes, 16, 1000, true);
    assert.is(out.memory, undefined, what);
    assert.equal([...out.bytes], [...capSections(bytes, 16, 1000, true).bytes], what);
  }
});
rewrite('should not take an import of the pool namespace that names no limits, or a module importing a memory of its own, for a recycled one', () => {
  const named = compile(watToWasm(`(module (import "${POOLED_MEMORY_MODULE}" "memory" (memory 1)))`, 'recycle-unnamed'));
  assert.is(pooledMemoryOf(named), undefined);
  const other = compile(watToWasm('(module (import "env" "1:2:unshared" (memory 1 2)))', 'recycle-other'));
  assert.is(pooledMemoryOf(other), undefined);
});
rewrite('should accept the pool\'s memory import only in a module the host compiled itself :: -32012 otherwise', async () => {
  const bytes = watToWasm(guest('(memory (export "memory") 1)'), 'recycle-check');
  const ours = await compileExtensionModule(bytes, { name: 'ours' });
  assert.ok(pooledMemoryOf(ours));
  assert.is(checkGuestModule(ours, 'ours'), 'extism');
  // The same rewritten bytes compiled by a caller: the host did not make that import, so it refuses it.
  const theirs = compile(capSectionsImportingMemory(bytes, 4096, 65_536).bytes);
  assert.throws(() => checkGuestModule(theirs, 'theirs'), (e: unknown) => (e as { code?: unknown }).code === ErrorCode.PermissionDenied && /mep:memory/.test((e as Error).message));
});
rewrite.run();
