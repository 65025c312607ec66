import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { HOST_BOUNDS } from '../../protocol/limits.ts';
import { createMemoryTransportPair } from '../memory.ts';
import type { JsonRpcMessage } from '../types.ts';
import { withSourceMappedErrors } from './mapped-errors.ts';
import { OWN_BUILD_MAP, parseSourceMap, SourceMapLimitError, type SourceMap } from './source-map.ts';
import { moduleSourceMap, SOURCE_MAP_SECTION } from './wasm-section.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** LEB128 of `n`. */
const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
};

/** An empty module with one `mep.sourcemap` custom section holding `text`. */
function moduleWithMap(text: string): WebAssembly.Module {
  const name = new TextEncoder().encode(SOURCE_MAP_SECTION);
  const payload = new TextEncoder().encode(text);
  const body = [...leb(name.length), ...name];
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x00, ...leb(body.length + payload.length), ...body];
  const bytes = new Uint8Array(header.length + payload.length);
  bytes.set(header);
  bytes.set(payload, header.length);
  return new WebAssembly.Module(bytes);
}

const Bounds = suite('source map :: a guest-supplied map is attacker data');

Bounds('should refuse a map section larger than the host decodes, without decoding it :: hostile', () => {
  const padding = 'x'.repeat(HOST_BOUNDS.maxSourceMapBytes);
  const module = moduleWithMap(`{"version":3,"sources":["a.ts"],"mappings":"AAAA","sourcesContent":["${padding}"]}`);
  assert.throws(() => moduleSourceMap(module)(), (error: unknown) => error instanceof SourceMapLimitError && error.limit === 'maxSourceMapBytes');
  assert.throws(() => parseSourceMap(`{"version":3,"sources":[],"mappings":"","x":"${padding}"}`), (error: unknown) => error instanceof SourceMapLimitError);
});

Bounds('should hold a map of a million generated lines in little memory :: hostile', () => {
  // One empty line per byte: decoded into an array per line, 1 MB cost the host hundreds of MB.
  const text = `{"version":3,"file":"guest.js","sources":["a.ts"],"mappings":"${';'.repeat(1_000_000)}AAAA"}`;
  gc();
  const before = getHeapStatistics().used_heap_size;
  const map = parseSourceMap(text);
  const held = getHeapStatistics().used_heap_size - before;
  assert.ok(held < 16 * 1024 * 1024, `the map holds ${Math.round(held / 1024 / 1024)} MB`);
  assert.equal(map.lookup(1_000_001), { source: 'a.ts', line: 1, ignored: false });
  assert.is(map.lookup(5), undefined);
});

Bounds('should not keep a decoded map past the session that read it, though the module lives on :: serve', async () => {
  const module = moduleWithMap(JSON.stringify({ version: 3, file: 'guest.js', sources: ['src/a.ts'], mappings: 'AASE' }));
  let collected = false;
  const registry = new FinalizationRegistry(() => (collected = true));
  (() => {
    const map = moduleSourceMap(module)() as SourceMap;
    registry.register(map, 'map');
  })();
  for (let i = 0; i < 5 && !collected; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(collected, 'the map was collected while its module is alive');
  assert.ok(module instanceof WebAssembly.Module);
});

Bounds('should report errors unmapped, with a note, once a map is past a bound :: note', () => {
  const [host, extension] = createMemoryTransportPair({ sync: true });
  const module = moduleWithMap(`{"version":3,"file":"guest.js","sources":[],"mappings":"","x":"${'x'.repeat(HOST_BOUNDS.maxSourceMapBytes)}"}`);
  const mapped = withSourceMappedErrors(host, { loadMap: moduleSourceMap(module) });
  const received: JsonRpcMessage[] = [];
  mapped.onMessage((m) => received.push(m));
  const stack = '    at level3 (guest.js:1:8)';
  extension.send({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom', data: { stack } } });
  extension.send({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'again', data: { stack } } });
  for (const message of received) {
    const data = (message.error as { data: Record<string, unknown> }).data;
    assert.is(data.stack, stack, 'the stack as the guest sent it');
    assert.match(String(data.sourceMap), /maxSourceMapBytes/);
  }
});

Bounds('should read the build\'s own map of the author\'s bundle without the bounds for guest-supplied maps (a busy machine failed large builds)', () => {
  // Longer than the host reads of a guest's map.
  const lines = Math.ceil((HOST_BOUNDS.maxSourceMapBytes + 1024) / 5);
  const text = JSON.stringify({ version: 3, sources: ['src/extension.ts'], names: [], mappings: 'AAAA;'.repeat(lines) });
  assert.throws(() => parseSourceMap(text), (e: unknown) => e instanceof SourceMapLimitError);
  const own = parseSourceMap(text, OWN_BUILD_MAP);
  assert.equal(own.lookup(lines, 1)?.source, 'src/extension.ts');
});

Bounds.run();
