import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { watToWasm } from '../../../../fixtures/wasm/compile.ts';
import { createWasmTransport } from './index.ts';
import { createNodeWasmWorkerSpawner } from './node/worker.ts';

const spawnWorker = createNodeWasmWorkerSpawner();

/** A guest whose export `name` is `what` (a global, a table, a function or a memory) where the host reads another kind. */
const guest = (name: string, what: string): Uint8Array =>
  watToWasm(`(module ${name === 'memory' ? '' : '(memory (export "memory") 1)'} ${what.replace('$NAME', name)} ${name === 'handle' ? '' : '(func (export "handle") (result i32) (i32.const 0))'})`, 'export-kinds');

const cases: Array<[string, string, string]> = [
  ['memory', '(global (export "$NAME") i32 (i32.const 0))', 'global'],
  ['memory', '(table (export "$NAME") 1 funcref)', 'table'],
  ['handle', '(global (export "$NAME") i32 (i32.const 0))', 'global'],
  ['mep_host_attach', '(global (export "$NAME") i32 (i32.const 0)) (table (export "__indirect_function_table") 1 funcref)', 'global'],
  ['mep_release', '(global (export "$NAME") i32 (i32.const 0))', 'global'],
  ['__indirect_function_table', '(func (export "$NAME")) (func (export "mep_host_attach") (param i32 i32 i32) (result i32) (i32.const 0))', 'function'],
];

for (const isolation of ['inline', 'worker'] as const) {
  const Kinds = suite(`wasm guest interface, exports and import types :: ${isolation}`);
  Kinds('should refuse a guest exporting memory, handle, mep_host_attach or mep_release as another kind, naming it, before instantiating :: ERR_USAGE', async () => {
    for (const [name, what, kind] of cases) {
      // On main a global named "memory" ended createWasmTransport with a bare TypeError (no code):
      // "Cannot read properties of undefined (reading 'byteLength')".
      const error = await createWasmTransport({ name: 'kinds', module: guest(name, what), isolation, spawnWorker, log: () => {} }).then(
        async (transport) => {
          await transport.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      assert.ok(isMepError(error), `${name} as a ${kind}: ${String(error)}`);
      assert.is(error.code, LocalErrorCode.Usage, `${name} as a ${kind}: ${error.message}`);
      assert.match(error.message, `"${name}"`);
      assert.match(error.message, kind);
      assert.equal((error.data as { export?: unknown }).export, { name, kind });
    }
  });
  Kinds('should refuse a guest importing a host function with another wasm type, naming the import and both types, before compiling :: ERR_USAGE :: import-types', async () => {
    // Linked before (the host's functions are JavaScript, which takes any type) and failed at the
    // first call in a conversion's words: "Cannot convert 0 to a BigInt".
    const imports: Array<[string, string]> = [
      ['(import "extism:host/user" "mep_interrupt" (func (param i32) (result i64)))', 'extism:host/user.mep_interrupt has the type (i32) -> (i64), where the host provides () -> (i32)'],
      ['(import "extism:host/user" "mep_notify" (func (param i64 i64)))', 'extism:host/user.mep_notify has the type (i64, i64) -> ()'],
      ['(import "extism:host/env" "alloc" (func (param i32) (result i32)))', 'extism:host/env.alloc has the type (i32) -> (i32), where the host provides (i64) -> (i64)'],
    ];
    for (const [wat, named] of imports) {
      const module = watToWasm(`(module ${wat} (memory (export "memory") 1) (func (export "handle") (result i32) (i32.const 0)))`, 'import-types');
      const error = await createWasmTransport({ name: 'types', module, isolation, spawnWorker, log: () => {} }).then(
        async (transport) => {
          await transport.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      assert.ok(isMepError(error), `${wat}: ${String(error)}`);
      assert.is(error.code, LocalErrorCode.Usage, error.message);
      assert.match(error.message, named);
    }
  });
  Kinds.run();
}
