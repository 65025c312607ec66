import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../../host/src/protocol/errors.ts';
import { buildGuest, type Diagnostic } from './index.ts';
import { ByteWriter, writeModule } from './internal/wasm-binary.ts';
import { createMepPlugin, type MepPluginOptions } from './testing/extism-host.ts';
import { FIXTURE_DIR, TOP_LEVEL_THROW, TOP_LEVEL_THROW_HELPER, writeFixture, writeTestExtension } from './testing/fixtures.ts';
import { runWizer } from './wizer-snapshot.ts';

const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const rpc = (id: number | undefined, method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, method, params });

// A cache folder of this file's own, so the wizer build really runs wizer (no cached output).
mkdirSync(FIXTURE_DIR, { recursive: true });
const cacheDir = mkdtempSync(join(FIXTURE_DIR, 'wizer-cache-'));
const out = (name: string): string => join(FIXTURE_DIR, 'out', name);

/** The test extension built by both snapshotters into the same cache folder, node first. */
let built: Promise<{ node: Uint8Array; wizer: Uint8Array; wizerCached: [boolean, boolean] }> | undefined;
function builds(): NonNullable<typeof built> {
  built ??= (async () => {
    const entry = writeTestExtension();
    await buildGuest({ entry, outFile: out('snap-node.wasm'), cacheDir, typecheck: false });
    const first = await buildGuest({ entry, outFile: out('snap-wizer.wasm'), cacheDir, typecheck: false, snapshot: 'wizer' });
    const second = await buildGuest({ entry, outFile: out('snap-wizer.wasm'), cacheDir, typecheck: false, snapshot: 'wizer' });
    return { node: readFileSync(out('snap-node.wasm')), wizer: readFileSync(out('snap-wizer.wasm')), wizerCached: [first.cached, second.cached] };
  })();
  return built;
}

/** Runs the same calls on a guest and returns every output or error as text. */
async function transcript(wasm: Uint8Array): Promise<string[]> {
  const results: string[] = [];
  const notes: string[] = [];
  const options: MepPluginOptions = {
    onNotify: (j) => notes.push(j),
    onRequest: (j) => JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(j).id, result: `resolved ${JSON.parse(j).params.name}` }),
    onLog: (level, text) => results.push(`log ${level} ${text}`),
  };
  const p = await createMepPlugin(wasm, options);
  try {
    const calls: [string, string?][] = [
      ['handle', rpc(1, 'echo', { a: [1, 'é'], n: null })],
      ['handle', rpc(undefined, 'echo')],
      ['handle', rpc(2, 'describe')],
      ['handle', rpc(3, 'progress')],
      ['handle', rpc(4, 'secret')],
      ['fail'],
      ['recurse'],
      ['log'],
      ['echo', 'bytes \u0000 through'],
      ['handle', rpc(5, 'unknown-method')],
    ];
    for (const [name, input] of calls) {
      results.push(await p.call(name, input).then((o) => `${name} ok ${dec(o)}`, (e: unknown) => `${name} error ${String(e)}`));
    }
  } finally {
    await p.close();
  }
  return [...results, ...notes.map((n) => `notify ${n}`)];
}

const wizer = suite('buildGuest :: snapshot: wizer');

wizer('should give a module with only Extism kernel imports and the same exports as the node snapshot', async () => {
  const { node, wizer: w } = await builds();
  const [a, b] = [new WebAssembly.Module(node as Uint8Array<ArrayBuffer>), new WebAssembly.Module(w as Uint8Array<ArrayBuffer>)];
  assert.equal([...new Set(WebAssembly.Module.imports(b).map((i) => i.module))].sort(), ['extism:host/env']);
  assert.equal(WebAssembly.Module.imports(b), WebAssembly.Module.imports(a));
  assert.equal(WebAssembly.Module.exports(b), WebAssembly.Module.exports(a));
  // The engine runs the same calls under wizer as in process, so the snapshot is the same.
  assert.ok(Buffer.compare(node, w) === 0, 'the two snapshotters give the same bytes');
});

wizer('should answer every call exactly as the node snapshot does', async () => {
  const { node, wizer: w } = await builds();
  const expected = await transcript(node);
  assert.ok(expected.some((r) => r.startsWith('fail error') && /guest failure on purpose/.test(r)), expected.join('\n'));
  assert.ok(expected.some((r) => r.startsWith('recurse error') && /RangeError: Maximum call stack size exceeded/.test(r)), expected.join('\n'));
  assert.equal(await transcript(w), expected);
});

wizer('should cache per snapshotter: a node output is never served for wizer', async () => {
  const { wizerCached } = await builds();
  assert.equal(wizerCached, [false, true]);
});

wizer('should report a top-level throw with the throwing file and line', async () => {
  writeFixture('throws.ts', TOP_LEVEL_THROW_HELPER);
  const entry = writeFixture('top-level-throw-wizer.ts', TOP_LEVEL_THROW);
  try {
    await buildGuest({ entry, outFile: out('bad-wizer.wasm'), cacheDir, typecheck: false, snapshot: 'wizer' });
    assert.unreachable('the build should have failed');
  } catch (e) {
    assert.ok(isMepError(e) && e.code === LocalErrorCode.Build, String(e));
    const [d] = (e as { data: { diagnostics: Diagnostic[] } }).data.diagnostics;
    assert.match(d!.file, /throws\.ts$/);
    assert.is(d!.line, 4);
    assert.match(d!.message, /configuration is not ready/);
    assert.match(String((e as Error).message), /module initialization/);
    assert.not.match(d!.message, /trapped/, 'a JS exception, not a trap');
  }
});

/** A module exporting `init: () -> ()` with `body` (no locals), optionally importing `() -> i64` as function 0. */
function initModule(body: number[], importing?: [string, string]): Uint8Array {
  const types = new ByteWriter().u32(2).bytes(Uint8Array.of(0x60, 0, 0, 0x60, 0, 1, 0x7e)).toBytes();
  const code = Uint8Array.of(0, ...body, 0x0b);
  const sections = [{ id: 1, body: types }];
  if (importing) sections.push({ id: 2, body: new ByteWriter().u32(1).name(importing[0]).name(importing[1]).byte(0).u32(1).toBytes() });
  sections.push(
    { id: 3, body: Uint8Array.of(1, 0) },
    { id: 5, body: Uint8Array.of(1, 0, 1) },
    { id: 7, body: new ByteWriter().u32(1).name('init').byte(0).u32(importing ? 1 : 0).toBytes() },
    { id: 10, body: new ByteWriter().u32(1).u32(code.length).bytes(code).toBytes() },
  );
  return writeModule(sections);
}

wizer('should turn a trap into a message and a host call into ERR_BUILD, without wizer\'s backtrace', async () => {
  const tmp = join(cacheDir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const trapped = await runWizer(initModule([0x00]), 'init', tmp); // unreachable
  assert.ok(!trapped.ok);
  if (!trapped.ok) {
    assert.match(trapped.message, /^the module trapped while initializing: .*unreachable/);
    assert.not.match(trapped.message, /Stack backtrace|\n|0x[0-9a-f]+ - /);
  }
  try {
    await runWizer(initModule([0x10, 0x00, 0x1a], ['extism:host/env', 'input_length']), 'init', tmp); // call 0; drop
    assert.unreachable();
  } catch (e) {
    assert.ok(isMepError(e) && e.code === LocalErrorCode.Build, String(e));
    assert.match(String((e as Error).message), /unknown imported function: 'extism:host\/env' 'input_length'/);
  }
  const ok = await runWizer(initModule([]), 'init', tmp);
  assert.ok(ok.ok && WebAssembly.Module.exports(new WebAssembly.Module(ok.wasm as Uint8Array<ArrayBuffer>)).every((x) => x.name !== 'init'));
});

wizer('should refuse an unknown snapshotter with ERR_USAGE', async () => {
  try {
    await buildGuest({ entry: writeTestExtension(), outFile: out('x.wasm'), cacheDir, snapshot: 'v8' as never });
    assert.unreachable();
  } catch (e) {
    assert.ok(isMepError(e) && e.code === LocalErrorCode.Usage, String(e));
  }
});

wizer.after(() => rmSync(cacheDir, { recursive: true, force: true }));

wizer.run();
