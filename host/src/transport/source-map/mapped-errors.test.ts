import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { createMemoryTransportPair } from '../memory.ts';
import type { JsonRpcMessage } from '../types.ts';
import { withSourceMappedErrors } from './mapped-errors.ts';
import { parseSourceMap, type SourceMap } from './source-map.ts';

// guest.js line 1 -> src/a.ts 10:3 and 10:9; line 2 -> node_modules/dep/x.js 4:5 (ignored).
const MAP = { version: 3, file: 'guest.js', sources: ['src/a.ts', 'node_modules/dep/x.js'], mappings: 'AASE,MAAM;ACNJ', ignoreList: [1] };

function pair(loadMap: () => SourceMap | undefined) {
  const [host, extension] = createMemoryTransportPair({ sync: true });
  let loads = 0;
  const mapped = withSourceMappedErrors(host, {
    loadMap: () => {
      loads++;
      return loadMap();
    },
  });
  const received: JsonRpcMessage[] = [];
  mapped.onMessage((m) => received.push(m));
  return { mapped, extension, received, loads: () => loads, host };
}

const Mapped = suite('source map :: withSourceMappedErrors');

Mapped('should map the stack of an error response and keep what the guest sent', () => {
  const { extension, received, loads } = pair(() => parseSourceMap(MAP));
  extension.send({ jsonrpc: '2.0', id: 1, result: { ok: true } });
  assert.is(loads(), 0, 'no map is read for answers');
  extension.send({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'failed: boom', data: { stack: '    at dep (guest.js:2)\n    at level3 (guest.js:1)\n', extra: 1 } } });
  extension.send({ jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'again', data: { stack: '    at level3 (guest.js:1)' } } });
  assert.is(loads(), 1, 'the map is read once');
  const error = received[1]?.error as { code: number; message: string; data: Record<string, unknown> };
  assert.is(error.code, -32603);
  assert.is(error.message, 'failed: boom');
  assert.is(error.data.extra, 1);
  assert.is(error.data.stack, '    at dep (node_modules/dep/x.js:4)\n    at level3 (src/a.ts:10)\n');
  assert.is(error.data.guestStack, '    at dep (guest.js:2)\n    at level3 (guest.js:1)\n');
  assert.equal(error.data.origin, { file: 'src/a.ts', line: 10, mapped: true, ignored: false, function: 'level3' });
  assert.is((error.data.frames as unknown[]).length, 2);
  assert.equal(received[0], { jsonrpc: '2.0', id: 1, result: { ok: true } });
});

Mapped('should map the stack inside the message of an exception that left the guest', () => {
  const { extension, received } = pair(() => parseSourceMap(MAP));
  const guestMessage = 'TypeError: no\n    at level3 (guest.js:1:7)';
  extension.send({ jsonrpc: '2.0', id: 1, error: { code: -32010, message: `Wasm extension "x" failed: ${guestMessage}`, data: { extension: 'x', guestMessage } } });
  const error = received[0]?.error as { message: string; data: Record<string, unknown> };
  assert.is(error.message, 'Wasm extension "x" failed: TypeError: no\n    at level3 (src/a.ts:10:9)');
  assert.is(error.data.guestMessage, guestMessage);
  assert.is((error.data.origin as { column: number }).column, 9);
});

Mapped('should deliver errors unchanged when there is no map, the map is broken, or nothing maps :: hostile', () => {
  const unmappable: JsonRpcMessage[] = [
    { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'x', data: { stack: '    at f (other.js:1:1)' } } },
    { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'x', data: ['not', 'an', 'object'] } },
    { jsonrpc: '2.0', id: 3, error: 'not an object' },
    { jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'x' } },
  ];
  const bundleFrame: JsonRpcMessage = { jsonrpc: '2.0', id: 5, error: { code: -32603, message: 'x', data: { stack: '    at level3 (guest.js:1)' } } };
  const cases: [() => SourceMap | undefined, JsonRpcMessage[]][] = [
    [() => undefined, [...unmappable, bundleFrame]],
    [() => parseSourceMap('{"version":3,"sources":[],"mappings":"!!"}'), [...unmappable, bundleFrame]],
    [() => { throw new Error('unreadable'); }, [bundleFrame]],
    [() => parseSourceMap(MAP), unmappable],
  ];
  for (const [loadMap, messages] of cases) {
    const { extension, received } = pair(loadMap);
    for (const m of messages) extension.send(m);
    assert.equal(received, messages.map((m) => JSON.parse(JSON.stringify(m))));
  }
});

Mapped('should map the stderr of a process that crashed at load in the error it closes with', () => {
  const { mapped, host } = pair(() => parseSourceMap(MAP));
  const closes: (MepError | undefined)[] = [];
  mapped.onClose((e) => closes.push(e));
  const stderr = ['file:///p/guest.js:2', '  code', '', 'TypeError: no', '    at file:///p/guest.js:1:7', '    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)'];
  host.fail(new MepError(LocalErrorCode.ExtensionCrashed, 'Extension x exited unexpectedly (exit code 1).', { data: { extension: 'x', stderr } }));
  const error = closes[0] as MepError;
  assert.is(error.code, LocalErrorCode.ExtensionCrashed);
  const data = error.data as Record<string, unknown>;
  assert.equal(data.guestStderr, stderr);
  assert.equal((data.stderr as string[]).slice(0, 5), ['node_modules/dep/x.js:4', '  code', '', 'TypeError: no', '    at src/a.ts:10:9']);
  assert.equal(data.origin, { file: 'src/a.ts', line: 10, column: 9, mapped: true, ignored: false });
  assert.is(data.exception, 'TypeError: no');
});

Mapped('should keep the members of the transport it wraps', () => {
  const { mapped, host } = pair(() => undefined);
  mapped.cancel?.(7);
  assert.equal(host.cancelled, [7]);
  assert.is(mapped.name, 'host');
  assert.is((mapped as typeof host).closed, false);
});

Mapped.run();
