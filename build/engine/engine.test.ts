import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { createEngineRunner, ENGINE_CACHE_DIR, ensureEngine, IMPORT_NAMESPACE, REPO_ROOT } from './index.ts';
import { applyPatch } from './patches/apply.ts';
import { inV8 } from './v8-compare.ts';
import { QUICKJS_PATCHES, QUICKJS_SOURCES, ensureQuickjsSource } from './quickjs-source.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null): string => (b ? new TextDecoder().decode(b) : '');

const abi = suite('engine :: Javy plugin ABI');

abi('should export the plugin functions and carry import_namespace', async () => {
  const { wasmPath } = await ensureEngine();
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  for (const name of ['initialize-runtime', 'compile-src', 'invoke', 'cabi_realloc', 'memory']) assert.ok(exports.includes(name), name);
  const [section] = WebAssembly.Module.customSections(module, 'import_namespace');
  assert.is(new TextDecoder().decode(section), IMPORT_NAMESPACE);
});

abi('should import only the Extism kernel functions wit/mep-guest.wit lists (no WASI, no user functions)', async () => {
  const module = await WebAssembly.compile(readFileSync((await ensureEngine()).wasmPath));
  const imports = WebAssembly.Module.imports(module);
  assert.equal([...new Set(imports.map((i) => i.module))], ['extism:host/env']);
  // The list the WIT documents, between its "reference host):" line and "Besides".
  const wit = readFileSync(join(REPO_ROOT, 'wit', 'mep-guest.wit'), 'utf8');
  const listed = /reference host\):\n([\s\S]*?)\n\/\/ Besides/.exec(wit)?.[1] ?? '';
  const kernel = listed.replace(/\/\//g, '').split(/[\s,]+/).filter(Boolean).sort();
  assert.ok(kernel.length > 10, 'the WIT lists the kernel functions');
  assert.equal(imports.map((i) => i.name).sort(), kernel);
  const exports = WebAssembly.Module.exports(module);
  assert.ok(exports.some((e) => e.name === '__indirect_function_table' && e.kind === 'table'));
  assert.ok(exports.some((e) => e.name === 'mep_host_attach' && e.kind === 'function'));
});

abi('should compile source to bytecode and run it through invoke', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = r.compile('globalThis.upper = () => Host.outputString(Host.inputString().toUpperCase() + [1, 2, 3].at(-1));');
  assert.ok(c.ok);
  if (!c.ok) return;
  assert.ok(c.bytecode.length > 0);
  const res = r.invoke(c.bytecode, 'upper', enc('abc'));
  assert.is(res.error, null);
  assert.is(dec(res.output), 'ABC3');
});

abi('should return discriminant 1 and a message for bad source', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = r.compile('let x = ;');
  assert.not.ok(c.ok);
  if (!c.ok) assert.match(c.message, /^SyntaxError: /);
});

abi('should report an exception through error_set with message and stack', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = r.compile('globalThis.t = () => {\n  throw new TypeError("boom");\n};');
  if (!c.ok) throw new Error(c.message);
  const res = r.invoke(c.bytecode, 't');
  assert.match(res.error ?? '', /^TypeError: boom\n\s+at .*guest\.js:2/);
});

abi('should compile a script as a script (its top-level var is global) and an import or export first as a module', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  // A script that also parses as a module, as esbuild's IIFE bundles do.
  const script = r.compile('#!/usr/bin/env qjs\n/* a */ // b\nvar kept = 1;\nglobalThis.f = () => Host.outputString(typeof globalThis.kept + typeof import("x"));');
  if (!script.ok) throw new Error(script.message);
  assert.is(dec(r.invoke(script.bytecode, 'f').output), 'numberobject');
  for (const source of ['export const a = 1;', '/* c */\nexport default 1;']) assert.ok(r.compile(source).ok, source);
  // A module's imports are resolved as it compiles, and the engine loads no modules.
  for (const source of ['import x from "y";', 'import{ x } from "y";', 'import "y";']) {
    const m = r.compile(source);
    assert.match(m.ok ? '' : m.message, /could not load module/, source);
  }
  // An import call or import.meta first is a script, so `import.meta` does not compile.
  assert.not.ok(r.compile('import.meta.url;').ok);
  assert.ok(r.compile('import("y").catch(() => 0);').ok);
});

abi('should write bytecode without the functions\' source text, nested or not, as QuickJS 2021 did', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const body = 'total += step * 3;'.repeat(500);
  const c = r.compile(`function outer(step) { let total = 0; function inner() { ${body} } inner(); return total; }\nglobalThis.f = () => Host.outputString(String(outer(1)) + ' ' + outer.toString());`);
  if (!c.ok) throw new Error(c.message);
  assert.not.ok(Buffer.from(c.bytecode).includes('total += step * 3;'), 'the source text is not in the bytecode');
  // With the source, outer's and inner's copies alone would be twice the body.
  assert.ok(c.bytecode.length < 1.5 * body.length, `${c.bytecode.length} bytes of bytecode for ${body.length} of source`);
  assert.is(dec(r.invoke(c.bytecode, 'f').output), '1500 function outer() {\n    [native code]\n}');
});

abi('should turn infinite recursion into the RangeError V8 throws, catchable, and stay usable', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const source =
    'function down(n) { return down(n + 1) + 1 }\nglobalThis.deep = () => down(0);\nglobalThis.ok = () => Host.outputString("ok");\n' +
    'globalThis.caught = () => { try { down(0); } catch (e) { Host.outputString(`${e instanceof RangeError} ${e.message}`); } };';
  const c = r.compile(source);
  if (!c.ok) throw new Error(c.message);
  assert.match(r.invoke(c.bytecode, 'deep').error ?? '', /^RangeError: Maximum call stack size exceeded/);
  assert.match(r.invoke(c.bytecode, 'deep').error ?? '', /^RangeError: Maximum call stack size exceeded/);
  assert.is(dec(r.invoke(c.bytecode, 'caught').output), 'true Maximum call stack size exceeded');
  assert.is(dec(r.invoke(c.bytecode, 'ok').output), 'ok');
});

abi('should keep infinite recursion a catchable RangeError once V8 has optimized the engine (its larger frames)', async () => {
  // A busy guest's interpreter runs as TurboFan code, whose frame of JS_CallInternal is larger on
  // the host's stack than Liftoff's: QuickJS's own limit must still come first. Compiled here with
  // TurboFan only and eagerly (V8's defaults restored at once), so that no warm-up is needed. The host's stack
  // overflowed first at 2,408 frames of this closure (the compare and branch edits, issue 32).
  // A custom section of its own makes these bytes new to V8, whose module cache would otherwise
  // hand back the engine compiled earlier in this process.
  const name = enc('mep-turbofan-test');
  const bytes = new Uint8Array([...readFileSync((await ensureEngine()).wasmPath), 0, name.length + 1, name.length, ...name]);
  setFlagsFromString('--no-liftoff --no-wasm-lazy-compilation');
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(bytes);
  } finally {
    setFlagsFromString('--liftoff --wasm-lazy-compilation');
  }
  const r = await createEngineRunner(module);
  const source =
    'globalThis.deep = () => { let d = 0; function r() { d++; return r() + 1; } try { r(); } catch (e) { Host.outputString(`${e instanceof RangeError} ${d > 1000}`); } };\n' +
    'globalThis.ok = () => Host.outputString("ok");';
  const c = r.compile(source);
  if (!c.ok) throw new Error(c.message);
  assert.is(dec(r.invoke(c.bytecode, 'deep').output), 'true true');
  assert.is(dec(r.invoke(c.bytecode, 'ok').output), 'ok');
});

abi('should grow linear memory in a few large steps while malloc asks for many small ones', async () => {
  // The clock callback runs inside the guest's allocation loop; it samples the memory's size.
  let memory: WebAssembly.Memory | undefined;
  const sizes = new Set<number>();
  const r = await createEngineRunner((await ensureEngine()).wasmPath, {
    clockMs: () => {
      if (memory) sizes.add(memory.buffer.byteLength);
      return 1;
    },
  });
  memory = r.instance.exports.memory as WebAssembly.Memory;
  const before = memory.buffer.byteLength;
  // About 60 MiB in 400,000 small objects, each kept: malloc extends its heap 64 KiB at a time.
  const c = r.compile('globalThis.fill = () => { const keep = []; for (let i = 0; i < 400000; i++) { keep.push({ i, s: "x" + i }); if (i % 500 === 0) __mep.clockMs(); } Host.outputString(String(keep.length)); };');
  if (!c.ok) throw new Error(c.message);
  const res = r.invoke(c.bytecode, 'fill');
  assert.is(res.error, null);
  assert.is(dec(res.output), '400000');
  const grownMiB = (memory.buffer.byteLength - before) / 2 ** 20;
  assert.ok(grownMiB > 20, `the guest allocated ${grownMiB.toFixed(1)} MiB`);
  // 64 KiB steps would show hundreds of sizes; growing ahead by an eighth shows a few dozen.
  assert.ok(sizes.size < 40, `memory took ${sizes.size} sizes while growing ${grownMiB.toFixed(1)} MiB`);
});

abi.run();

const globals = suite('engine :: guest globals');

globals('should parse the call input as JSON from its bytes, throwing SyntaxError on bad JSON', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = r.compile('globalThis.f = () => { try { const v = __mep.inputJson(); Host.outputString(JSON.stringify([typeof v, v])); } catch (e) { Host.outputString(e.name + ": " + (e instanceof SyntaxError)); } };');
  if (!c.ok) throw new Error(c.message);
  const json = '{"ir":{"name":["α","β"],"n":[1,2.5,-0,null,true]},"s":"\\u00e9\\n"}';
  assert.is(dec(r.invoke(c.bytecode, 'f', enc(json)).output), JSON.stringify(['object', JSON.parse(json)]));
  assert.is(dec(r.invoke(c.bytecode, 'f', enc('{"a":')).output), 'SyntaxError: true');
  assert.is(dec(r.invoke(c.bytecode, 'f', enc('')).output), 'SyntaxError: true');
  assert.is(dec(r.invoke(c.bytecode, 'f', enc('[1] x')).output), 'SyntaxError: true');
});

globals('should keep integer-to-string and JSON.stringify semantics through the engine\'s edits of QuickJS', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const source = [
    'globalThis.f = () => {',
    '  const ints = [0, 7, -7, 10, -10, 2147483647, -2147483648, 1e21, -0, 0.5].map((n) => String(n) + "|" + `${n}` + "|" + (n + ""));',
    '  const keys = [];',
    '  const replaced = JSON.stringify(["a", ["b"]], function (k, v) { keys.push(typeof k + ":" + k); return v; });',
    '  const viaToJSON = JSON.stringify([1, { toJSON(k) { return "key " + typeof k + " " + k; } }, 2n ** 3n > 0n ? "big" : ""]);',
    '  BigInt.prototype.toJSON = function (k) { return "bigint at " + k; };',
    '  const bigints = JSON.stringify([1n, 2n]);',
    '  delete BigInt.prototype.toJSON;',
    '  Host.outputString(JSON.stringify({ ints, keys, replaced, viaToJSON, bigints, nested: JSON.stringify([[1, [2]], { a: [null, undefined] }], null, 1) }));',
    '};',
  ].join("\n");
  const c = r.compile(source);
  if (!c.ok) throw new Error(c.message);
  const res = r.invoke(c.bytecode, 'f');
  assert.is(res.error, null);
  // What V8 (any conforming engine) gives for the same script.
  let expected = '';
  new Function('Host', source + '\nf();')({ outputString: (s: string) => void (expected = s) });
  assert.equal(JSON.parse(dec(res.output)), JSON.parse(expected));
});

globals('should give time and randomness only when granted', async () => {
  // Without the grant the clock is fixed at 2000-01-01 (before 1e12 ms); the host's is past it.
  const src = 'globalThis.f = () => Host.outputString(JSON.stringify([Date.now() > 1e12, __mep.randomFill(new Uint8Array(4))]));';
  const denied = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = denied.compile(src);
  if (!c.ok) throw new Error(c.message);
  assert.is(dec(denied.invoke(c.bytecode, 'f').output), '[false,false]');
  const granted = await createEngineRunner((await ensureEngine()).wasmPath, { clockMs: () => Date.now(), random: true });
  assert.is(dec(granted.invoke(c.bytecode, 'f').output), '[true,true]');
});

globals('should map console and Config to the Extism kernel', async () => {
  const logs: string[] = [];
  const r = await createEngineRunner((await ensureEngine()).wasmPath, { onLog: (l, t) => logs.push(`${l} ${t}`), config: { name: 'avro' } });
  const c = r.compile('globalThis.f = () => { console.warn("w", { a: 1 }); console.error(new Error("e").message); Host.outputString(String(Config.get("name")) + String(Config.get("none"))); };');
  if (!c.ok) throw new Error(c.message);
  assert.is(dec(r.invoke(c.bytecode, 'f').output), 'avronull');
  assert.equal(logs, ['warn w { a: 1 }', 'error e']);
});

globals('should run current syntax and built-ins natively, as V8 does: RegExp u, d and v flags, Error cause, WeakRef', async () => {
  const source = `globalThis.f = () => {
    const d = /b(c)/d.exec('abc');
    // Nothing else holds the target: the standard keeps it until the job ends, as V8 does.
    const weak = new WeakRef({ k: 1 });
    new FinalizationRegistry(() => {}).register({}, 'held');
    Host.outputString(JSON.stringify([
      /[\\-]/u.test('-'), d.indices, /[\\p{L}--[a-z]]/v.test('A'), /[\\p{L}--[a-z]]/v.test('a'),
      new Error('x', { cause: 'why' }).cause, weak.deref(), [3, 1, 2].toSorted(), [1, 2, 3].at(-1), 'abc'.at(-1),
      structuredClone(new Map([[1, { a: [1] }]])).get(1), typeof queueMicrotask, atob(btoa('hi')), Object.hasOwn({ a: 1 }, 'a'),
    ]));
  };
  globalThis.g = () => Host.outputString(JSON.stringify([
    [...new Set([1, 2, 3]).union(new Set([4])).intersection(new Set([2, 4]))],
    [1, 2, 3, 4].values().filter((n) => n % 2 === 0).map((n) => n * 10).toArray(),
    Object.groupBy([1, 2, 3], (n) => (n % 2 ? 'odd' : 'even')), typeof Promise.withResolvers, typeof Array.fromAsync,
  ]));`;
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = r.compile(source);
  if (!c.ok) throw new Error(c.message);
  const res = r.invoke(c.bytecode, 'f');
  assert.is(res.error, null);
  assert.is(dec(res.output), inV8(source, 'f'));
  // Newer than this Node's V8 (Set methods, iterator helpers, Object.groupBy: Node 22): the values the standard gives.
  assert.is(dec(r.invoke(c.bytecode, 'g').output), JSON.stringify([[2, 4], [20, 40], { odd: [1, 3], even: [2] }, 'function', 'function']));
});

globals('should keep a WeakRef target for the rest of the call and let it go when the next call begins', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = r.compile('globalThis.make = () => { globalThis.w = new WeakRef({ k: 1 }); Host.outputString(String(w.deref().k)); };\nglobalThis.read = () => Host.outputString(typeof w.deref());');
  if (!c.ok) throw new Error(c.message);
  assert.is(dec(r.invoke(c.bytecode, 'make').output), '1');
  assert.is(dec(r.invoke(c.bytecode, 'read').output), 'undefined');
});

globals.run();

const sources = suite('engine :: QuickJS sources');

sources('should compile the fetched sources with every one of the engine\'s edits in place', async () => {
  await ensureEngine();
  const dir = await ensureQuickjsSource(ENGINE_CACHE_DIR);
  const pristine = await ensureQuickjsSource(ENGINE_CACHE_DIR, { patches: [] });
  assert.ok(QUICKJS_PATCHES.length > 0);
  for (const file of QUICKJS_SOURCES) {
    const edits = QUICKJS_PATCHES.filter((p) => p.file === file);
    const expected = edits.reduce((text, patch) => applyPatch(text, patch), readFileSync(join(pristine, file), 'utf8'));
    assert.ok(readFileSync(join(dir, file), 'utf8') === expected, `${file}: the built source is the pristine one with its ${edits.length} edits`);
    for (const patch of edits) assert.ok(expected.includes(patch.text.replace(/\n$/, '')), patch.why);
  }
});

sources('should hold no block of QuickJS\'s own source: no three lines of an edit are three lines of quickjs-ng', async () => {
  const pristine = await ensureQuickjsSource(ENGINE_CACHE_DIR, { patches: [] });
  for (const file of QUICKJS_SOURCES) {
    const lines = readFileSync(join(pristine, file), 'utf8').split('\n').map((l) => l.trim());
    const runs = new Set<string>();
    for (let i = 0; i + 3 <= lines.length; i++) if (lines.slice(i, i + 3).every((l) => l.length >= 8)) runs.add(lines.slice(i, i + 3).join('\n'));
    for (const patch of QUICKJS_PATCHES.filter((p) => p.file === file)) {
      const ours = patch.text.split('\n').map((l) => l.trim());
      for (let i = 0; i + 3 <= ours.length; i++) assert.not.ok(runs.has(ours.slice(i, i + 3).join('\n')), `${patch.why.slice(0, 60)}: lines ${i + 1}-${i + 3} copy QuickJS`);
    }
  }
});

sources.run();
