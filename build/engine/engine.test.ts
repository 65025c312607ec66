import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngineRunner, ENGINE_CACHE_DIR, ensureEngine, IMPORT_NAMESPACE, REPO_ROOT } from './index.ts';
import { applyQuickjsPatches, QUICKJS_PATCHES, ensureQuickjsSource } from './quickjs-source.ts';

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

abi('should turn infinite recursion into InternalError and stay usable', async () => {
  const r = await createEngineRunner((await ensureEngine()).wasmPath);
  const c = r.compile('function down(n) { return down(n + 1) + 1 }\nglobalThis.deep = () => down(0);\nglobalThis.ok = () => Host.outputString("ok");');
  if (!c.ok) throw new Error(c.message);
  assert.match(r.invoke(c.bytecode, 'deep').error ?? '', /^InternalError: stack overflow/);
  assert.match(r.invoke(c.bytecode, 'deep').error ?? '', /^InternalError: stack overflow/);
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
  const src = 'globalThis.f = () => Host.outputString(JSON.stringify([Date.now() > 0, __mep.randomFill(new Uint8Array(4))]));';
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

globals.run();

const sources = suite('engine :: QuickJS sources');

sources('should compile the fetched sources with every one of the engine\'s edits in place', async () => {
  await ensureEngine();
  const dir = ensureQuickjsSource(ENGINE_CACHE_DIR);
  assert.ok(QUICKJS_PATCHES.length > 0);
  for (const patch of QUICKJS_PATCHES) {
    const text = readFileSync(join(dir, patch.file), 'utf8');
    assert.ok(text.includes(patch.replace), patch.why);
    assert.not.ok(text.includes(patch.find), `the original text is gone: ${patch.why}`);
  }
});

sources('should refuse to build from sources an edit no longer fits, naming the edit and where to update it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-qjs-'));
  try {
    writeFileSync(join(dir, 'quickjs.c'), '/* a QuickJS without the text the edit replaces */\n');
    assert.throws(() => applyQuickjsPatches(dir), (e: Error & { code?: string }) => e.code === 'ERR_BUILD' && /quickjs\.c/.test(e.message) && /QUICKJS_PATCHES/.test(e.message));
    const twice = [{ ...(QUICKJS_PATCHES[0] as (typeof QUICKJS_PATCHES)[number]), find: 'x', replace: 'y' }];
    writeFileSync(join(dir, 'quickjs.c'), 'x x');
    assert.throws(() => applyQuickjsPatches(dir, twice), /exactly once/);
    writeFileSync(join(dir, 'quickjs.c'), 'a x b');
    applyQuickjsPatches(dir, twice);
    assert.is(readFileSync(join(dir, 'quickjs.c'), 'utf8'), 'a y b');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

sources.run();
