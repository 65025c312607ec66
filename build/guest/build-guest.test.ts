import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../../host/src/protocol/errors.ts';
import { SOURCE_MAP_SECTION } from '../../host/src/transport/source-map/wasm-section.ts';
import { buildGuest, findExtismJs, type Diagnostic } from './index.ts';
import { customSectionName, dataSegments, functionLocals, readSections, SectionId, writeModule } from './internal/wasm-binary.ts';
import { bundleGlobals } from '../engine/compile.ts';
import { ensureEngine, REPO_ROOT } from '../engine/index.ts';
import { createMepPlugin, type MepPluginOptions } from './testing/extism-host.ts';
import {
  FIXTURE_DIR, SYNTAX_ERROR, TOP_LEVEL_THROW, TOP_LEVEL_THROW_HELPER, TYPE_ERROR, writeFixture, writeTestExtension,
} from './testing/fixtures.ts';

const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const rpc = (id: number | undefined, method: string, params?: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, method, params });

// One guest for every runtime test: built once, then served from the content-hash cache.
let guest: Promise<WebAssembly.Module> | undefined;
function testGuest(): Promise<WebAssembly.Module> {
  guest ??= (async () => {
    const out = join(FIXTURE_DIR, 'out', 'test-extension.wasm');
    await buildGuest({ entry: writeTestExtension(), outFile: out });
    return WebAssembly.compile(readFileSync(out));
  })();
  return guest;
}

async function withPlugin(options: MepPluginOptions, fn: (p: Awaited<ReturnType<typeof createMepPlugin>>) => Promise<void>): Promise<void> {
  const p = await createMepPlugin(await testGuest(), options);
  try {
    await fn(p);
  } finally {
    await p.close();
  }
}

async function buildError(entry: string): Promise<Diagnostic[]> {
  try {
    await buildGuest({ entry, outFile: join(FIXTURE_DIR, 'out', 'bad.wasm') });
  } catch (e) {
    assert.ok(isMepError(e), String(e));
    if (isMepError(e)) {
      assert.is(e.code, LocalErrorCode.Build);
      return (e.data as { diagnostics: Diagnostic[] }).diagnostics;
    }
  }
  throw new Error('the build should have failed');
}

const run = suite('buildGuest :: wasm guest under @extism/extism');

run('should import only the Extism kernel and export the entry functions and the host-channel attach points', async () => {
  const module = await testGuest();
  const imports = new Set(WebAssembly.Module.imports(module).map((i) => i.module));
  assert.equal([...imports].sort(), ['extism:host/env']);
  const exports = WebAssembly.Module.exports(module).map((e) => e.name).sort();
  assert.equal(exports, ['__indirect_function_table', 'echo', 'fail', 'handle', 'log', 'memory', 'mep_host_attach', 'recurse', 'spin']);
});

run('should keep a small extension within the 1 MiB raw-guest budget, its freed heap zeroed in the snapshot', async () => {
  // The module the engine loads, without the source map section (skipped at instantiation).
  // Freed memory left in the snapshot (the engine's free lists, malloc's free chunks) is carried
  // as data unless it is zeroed first (glue/scrub.c, JS_MepScrubArenas): it once cost ~200 KB.
  await testGuest();
  const bytes = readFileSync(join(FIXTURE_DIR, 'out', 'test-extension.wasm'));
  const loaded = writeModule(readSections(bytes).filter((s) => !(s.id === SectionId.Custom && customSectionName(s) === SOURCE_MAP_SECTION)));
  assert.ok(loaded.length <= 1024 * 1024, `${(loaded.length / 1024).toFixed(0)} KB`);
});

run('should declare no more locals than the engine does: V8\'s baseline compiler pays for each one at every branch', async () => {
  // The guest's dead-code pass rewrites the engine through binaryen, which reads the -O3 run's
  // stack code back with scratch locals: JS_CallInternal went from 59 locals to 167, and V8's
  // baseline compile of it (lazy, in a fresh process's first call) from 2.9 MB of memory to 4.8 MB.
  await testGuest();
  const sum = (l: number[]): number => l.reduce((a, b) => a + b, 0);
  const guestLocals = functionLocals(readFileSync(join(FIXTURE_DIR, 'out', 'test-extension.wasm')));
  const engineLocals = functionLocals(readFileSync((await ensureEngine()).wasmPath));
  assert.ok(Math.max(...guestLocals) <= Math.max(...engineLocals), `most locals in a function: guest ${Math.max(...guestLocals)}, engine ${Math.max(...engineLocals)}`);
  assert.ok(sum(guestLocals) <= sum(engineLocals), `locals in all: guest ${sum(guestLocals)}, engine ${sum(engineLocals)}`);
});

run('should snapshot the platform without its text or its compiler\'s garbage: few memory pages hold data', async () => {
  // Every 4 KiB page a data segment touches is a page fault in every new instance, which is most
  // of a cold start. The platform's JS is compiled in a runtime of its own and its text zeroed
  // (glue/runtime.c): compiled in place, its parser's garbage spread the heap over 198 pages.
  // While the guest initializes, small blocks of every size class are carved from one chunk
  // (patches/alloc.ts), and each free chunk of malloc is zeroed whole (glue/scrub.c): with one
  // part-carved chunk per class and the headers of zeroed pieces left behind it took 123 pages.
  await testGuest();
  const bytes = readFileSync(join(FIXTURE_DIR, 'out', 'test-extension.wasm'));
  const pages = new Set<number>();
  const image: Uint8Array[] = [];
  for (const { passive, memory, offset, bytes: segment } of dataSegments(readSections(bytes))) {
    assert.ok(!passive && memory === 0 && offset !== undefined, 'an active segment of memory 0 at a constant offset');
    for (let p = offset! >>> 12; p <= (offset! + segment.length - 1) >>> 12; p++) pages.add(p);
    image.push(segment);
  }
  assert.ok(pages.size <= 115, `${pages.size} pages of 4 KiB hold data`);
  const text = bundleGlobals(join(REPO_ROOT, 'build', 'engine', 'glue', 'globals'));
  const all = Buffer.concat(image);
  for (const at of [0.25, 0.5, 0.75]) {
    const window = text.slice(Math.floor(text.length * at), Math.floor(text.length * at) + 48);
    assert.not.ok(all.includes(window), `the globals' text is in the snapshot: ${window}`);
  }
});

run('should exchange a JSON-RPC request and response through handle', async () => {
  await withPlugin({}, async (p) => {
    const out = JSON.parse(dec(await p.call('handle', rpc(7, 'echo', { a: [1, 'é'] }))));
    assert.equal(out, { jsonrpc: '2.0', id: 7, result: { a: [1, 'é'] } });
    assert.is((await p.call('handle', rpc(undefined, 'echo'))).length, 0, 'a notification has no response');
  });
});

run('should call the host back: mep_notify and mep_request', async () => {
  const notes: unknown[] = [];
  const onRequest = (json: string): string => JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(json).id, result: `resolved ${JSON.parse(json).params.name}` });
  await withPlugin({ onNotify: (j) => notes.push(JSON.parse(j)), onRequest }, async (p) => {
    assert.is(JSON.parse(dec(await p.call('handle', rpc(1, 'progress')))).result, 'notified');
    assert.equal(notes, [{ jsonrpc: '2.0', method: '$/progress', params: { token: 1, value: 50 } }]);
    assert.is(JSON.parse(dec(await p.call('handle', rpc(2, 'secret')))).result, 'resolved token');
  });
});

run('should provide the polyfilled builtins and no clock unless granted', async () => {
  await withPlugin({}, async (p) => {
    const r = JSON.parse(dec(await p.call('handle', rpc(3, 'describe')))).result;
    assert.equal(r, { at: 2, findLast: 2, sorted: [1, 2, 3], list: [3, 1, 2], hasOwn: true, replaced: 'a+b+c', clone: { deep: [1, { two: 2 }] }, text: 'héllo ✓', now: Date.UTC(2000, 0, 1), bigint: '18446744073709551616' });
  });
  await withPlugin({ clock: true }, async (p) => {
    assert.ok(JSON.parse(dec(await p.call('handle', rpc(4, 'describe')))).result.now > 1.6e12);
  });
});

run('should report a throw with message and stack, and stay usable', async () => {
  await withPlugin({}, async (p) => {
    const err = await p.call('fail').then(() => null, (e: unknown) => String(e));
    assert.match(err ?? '', /TypeError: guest failure on purpose\n\s+at fail \(guest\.js:\d+:\d+\)/);
    assert.is(JSON.parse(dec(await p.call('handle', rpc(5, 'echo', 'still here')))).result, 'still here');
  });
});

run('should turn a stack overflow into the RangeError V8 throws, and stay usable', async () => {
  await withPlugin({}, async (p) => {
    for (let i = 0; i < 2; i++) {
      const err = await p.call('recurse').then(() => null, (e: unknown) => String(e));
      assert.match(err ?? '', /RangeError: Maximum call stack size exceeded/);
    }
    assert.is(JSON.parse(dec(await p.call('handle', rpc(6, 'echo', 'after')))).result, 'after');
  });
});

run('should round-trip 10 MB', async () => {
  await withPlugin({}, async (p) => {
    const big = new Uint8Array(10 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i & 0xff;
    const out = await p.call('echo', big);
    assert.is(out.length, big.length);
    assert.ok(Buffer.compare(out, big) === 0);
  });
});

run('should refuse output above the host limit with a JS error', async () => {
  await withPlugin({ maxOutput: 10 }, async (p) => {
    const err = await p.call('echo', new Uint8Array(11)).then(() => null, (e: unknown) => String(e));
    assert.match(err ?? '', /output exceeds the host's limit/);
  });
});

run('should stop an infinite loop when mep_interrupt returns 1, and stay usable', async () => {
  let polls = 0;
  let stop = true;
  await withPlugin({ interrupt: () => stop && ++polls > 3 }, async (p) => {
    const err = await p.call('spin').then(() => null, (e: unknown) => String(e));
    assert.match(err ?? '', /InternalError: interrupted/);
    stop = false;
    assert.is(JSON.parse(dec(await p.call('handle', rpc(8, 'echo', 1)))).result, 1);
  });
});

run('should map console to Extism logs', async () => {
  const logs: string[] = [];
  await withPlugin({ onLog: (l, t) => logs.push(`${l} ${t}`) }, async (p) => {
    await p.call('log');
    assert.equal(logs, ["info hello { from: 'guest' }", 'warn careful']);
  });
});

run.run();

const errors = suite('buildGuest :: diagnostics');

errors('should report a type error with file and line', async () => {
  const [d] = await buildError(writeFixture('type-error.ts', TYPE_ERROR));
  assert.match(d!.file, /type-error\.ts$/);
  assert.is(d!.line, 3);
  assert.match(d!.message, /TS2322/);
});

errors('should report a syntax error with file and line', async () => {
  const [d] = await buildError(writeFixture('syntax-error.ts', SYNTAX_ERROR));
  assert.match(d!.file, /syntax-error\.ts$/);
  assert.is(d!.line, 2);
});

errors('should report a top-level throw with the throwing file and line', async () => {
  writeFixture('throws.ts', TOP_LEVEL_THROW_HELPER);
  const [d] = await buildError(writeFixture('top-level-throw.ts', TOP_LEVEL_THROW));
  assert.match(d!.file, /throws\.ts$/);
  assert.is(d!.line, 4);
  assert.match(d!.message, /configuration is not ready/);
});

errors('should refuse a missing entry with ERR_USAGE', async () => {
  try {
    await buildGuest({ entry: join(FIXTURE_DIR, 'nope.ts'), outFile: join(FIXTURE_DIR, 'out', 'nope.wasm') });
    assert.unreachable();
  } catch (e) {
    assert.ok(isMepError(e) && e.code === LocalErrorCode.Usage);
  }
});

errors.run();

const other = suite('buildGuest :: other outputs');

other('should bundle one executable Node file for --runtime process', async () => {
  const entry = writeFixture('process-entry.ts', 'export function handle(): number { return 0; }\nconsole.log("process guest up");\n');
  const out = join(FIXTURE_DIR, 'out', 'process-entry.mjs');
  const r = await buildGuest({ entry, outFile: out, runtime: 'process' });
  assert.is(r.runtime, 'process');
  assert.ok(readFileSync(out, 'utf8').startsWith('#!/usr/bin/env node'));
  assert.is(execFileSync(process.execPath, [out], { encoding: 'utf8' }).trim(), 'process guest up');
});

other('should build with extism-js when it is on PATH, else fail clearly', async () => {
  const entry = writeFixture('plain.ts', 'export function greet(): number { Host.outputString("hi"); return 0; }\n');
  const out = join(FIXTURE_DIR, 'out', 'plain-extism-js.wasm');
  if (await findExtismJs()) {
    const r = await buildGuest({ entry, outFile: out, compiler: 'extism-js' });
    assert.ok(r.size > 0);
    return;
  }
  try {
    await buildGuest({ entry, outFile: out, compiler: 'extism-js' });
    assert.unreachable();
  } catch (e) {
    assert.ok(isMepError(e) && e.code === LocalErrorCode.Build);
    assert.match(String((e as Error).message), /extism-js is not on PATH/);
  }
});

other.run();
