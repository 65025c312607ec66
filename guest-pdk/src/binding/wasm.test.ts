/**
 * The wasm binding run in Node against stand-ins of the engine's globals (`__mep`, `Host`): what it
 * keeps of a request while the handler runs.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { defineExtension } from '../define-extension.ts';
import { INIT } from '../testing/dispatcher-harness.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const outputs: string[] = [];
let next: () => unknown = () => ({});
let weakIr: WeakRef<object> | undefined;
Object.assign(globalThis, {
  __mep: { hostChannel: () => false, notify: () => false, request: () => null, interrupted: () => false, inputJson: () => next() },
  Host: { inputString: () => '', outputString: (s: string) => void outputs.push(s) },
});
const { bindWasm } = await import('./wasm.ts');

const binding = suite('bindWasm');

binding('should not keep an asynchronous request\'s message while its handler runs (the handler decides what stays)', async () => {
  let finish: () => void = () => undefined;
  const exports = bindWasm(
    defineExtension({
      info: { id: 'test.held', name: 'Held', version: '1.0.0' },
      // Reads nothing of its params: only the binding could keep the IR alive.
      backend: { targets: ['t'], irVersions: ['3'], generate: () => new Promise((resolve) => (finish = () => resolve({ artifacts: [] }))) },
    }),
  );
  next = () => ({ jsonrpc: '2.0', id: 1, method: 'morphir.initialize', params: INIT });
  assert.is(exports.handle(), 0);
  next = () => {
    const ir = { formatVersion: 3, distribution: [], big: Array.from({ length: 1000 }, (_, i) => ({ i })) };
    weakIr = new WeakRef(ir);
    return { jsonrpc: '2.0', id: 2, method: 'morphir.backend.generate', params: { ir, target: 't' } };
  };
  const answered = exports.handle();
  assert.instance(answered, Promise);
  await new Promise((resolve) => setTimeout(resolve, 0)); // past the job that made the WeakRef
  gc();
  assert.is(weakIr!.deref(), undefined, 'the IR is still referenced while the handler runs');
  finish();
  assert.is(await answered, 0);
  assert.match(outputs[outputs.length - 1]!, /"id":2,"result":\{/);
});

binding.run();
