/**
 * The "use strip" directive (build/engine/patches/strip-source.ts): a function whose body starts
 * with it, and every function nested in it, keeps no copy of its source text, as in Bellard's
 * QuickJS. The Elm frontend compiles morphir-elm's 2 MB worker with `new Function` under it;
 * stock quickjs-ng ignored the directive and kept the text once per nesting level (three copies,
 * 6 MB of the 14 MB snapshot). Code without the directive keeps its source as V8 does.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const stripped = new Function('a', '"use strip";\nfunction inner() { return a * 42; }\nconst arrow = () => inner() + 1;\nreturn [inner, arrow];');
  const [inner, arrow] = stripped(2);
  const kept = new Function('a', 'function inner() { return a * 42; }\nreturn inner;');
  const has = (fn, text) => fn.toString().includes(text);
  Host.outputString(JSON.stringify({
    results: [inner(), arrow(), kept(3)()],
    strippedOuter: has(stripped, 'return a * 42'),
    strippedInner: has(inner, 'return a * 42'),
    strippedArrow: has(arrow, 'inner() + 1'),
    keptOuter: has(kept, 'return a * 42'),
    keptInner: has(kept(1), 'return a * 42'),
  }));
};
globalThis.grow = () => {
  const strip = Host.inputString() === 'strip';
  const body = 'var x = 0;\n' + 'x = (x + 1) | 0; // padding that only the source text holds\n'.repeat(4000) + 'return x;';
  const kept = [];
  for (let i = 0; i < 20; i++) kept.push(new Function('n', (strip ? '"use strip";\n' : '') + '/* ' + i + ' */\n' + body));
  globalThis.keptFunctions = kept;
  Host.outputString(String(kept.reduce((s, fn) => s + fn(0), 0)));
};`;

const strip = suite('engine :: "use strip" keeps no source text (patches/strip-source.ts)');

strip('should drop the source of a function with the directive and of the functions inside it, and only theirs', async () => {
  const { run } = await engineWith(SOURCE);
  const got = JSON.parse(run('f'));
  assert.equal(got.results, [84, 85, 126], 'stripped functions still run');
  assert.equal({ outer: got.strippedOuter, inner: got.strippedInner, arrow: got.strippedArrow }, { outer: false, inner: false, arrow: false });
  const v8 = JSON.parse(inV8(SOURCE, 'f'));
  assert.equal({ keptOuter: got.keptOuter, keptInner: got.keptInner }, { keptOuter: v8.keptOuter, keptInner: v8.keptInner }, 'without the directive, source text as V8 keeps it (a guest\'s own bundle is bytecode written without source: not compared)');
});

strip('should not hold the text of stripped functions in memory', async () => {
  // 20 functions of 240 KB of source each: 4.8 MB of text when kept, nothing when stripped.
  const grown = async (mode: string): Promise<number> => {
    const { r, run } = await engineWith(SOURCE);
    const memory = r.instance.exports.memory as WebAssembly.Memory;
    const before = memory.buffer.byteLength;
    assert.is(run('grow', mode), '80000');
    return memory.buffer.byteLength - before;
  };
  const kept = await grown('keep');
  const stripped = await grown('strip');
  assert.ok(kept >= 4_000_000, `kept source should take ≥ 4 MB, grew ${kept} bytes`);
  assert.ok(stripped <= kept - 4_000_000, `stripped functions grew memory by ${stripped} bytes, kept ones by ${kept}`);
});

strip.run();
