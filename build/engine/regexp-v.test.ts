/**
 * The engine's `v`-flag edits (build/engine/patches/regexp.ts) against V8: set operations,
 * nested classes, `\q{…}` strings (forwards and in lookbehinds), properties of strings, `iv`, the
 * escapes a v-flag class requires and the characters it refuses, and the punctuators outside a
 * class that stock quickjs-ng 0.17 refused (jsonpath-plus's `/^(-?\d*):(-?\d*):?(-?\d*)$/v`
 * and `/;;;|;;/v`). Patterns V8 refuses must stay refused.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REGEXP_V_SCRIPT } from './testing/regexp-v-cases.ts';
import { engineWith, inV8 } from './v8-compare.ts';

/**
 * Where Node 20's V8 departs from ECMA-262, the spec's answer. `[\p{Ll}--a]` with `iv`: each
 * operand is case-folded (MaybeSimpleCaseFolding) before the difference, so `a` leaves the set and
 * neither `a` nor `A` matches; V8 11.3 matches both.
 */
const SPEC_OVER_NODE20: Record<string, string> = { '/[\\p{Ll}--a]/giv': '[[2,"b"],[3,"B"]]' };

const v = suite('engine :: RegExp v flag (patches/regexp.ts)');

v('should parse and match every v-flag case as V8 does, and refuse what V8 refuses', async () => {
  const { run } = await engineWith(REGEXP_V_SCRIPT);
  const engine = run('f').split('\n');
  const v8 = inV8(REGEXP_V_SCRIPT, 'f').split('\n');
  assert.is(engine.length, v8.length);
  assert.ok(v8.filter((l) => l.endsWith(': SyntaxError')).length > 40, 'the refused patterns are in the comparison');
  for (let i = 0; i < v8.length; i++) assert.is(engine[i], v8[i], `case ${i}`);
});

v('should give the spec answer where Node 20 differs from ECMA-262', async () => {
  const source = String.raw`globalThis.f = () => Host.outputString(JSON.stringify(Object.keys(${JSON.stringify(SPEC_OVER_NODE20)}).map((k) => {
    const [, src, flags] = /^\/(.*)\/(\w*)$/.exec(k);
    return k + ': ' + JSON.stringify([...'aAbB'.matchAll(new RegExp(src, flags))].map((m) => [m.index, ...m]));
  })));`;
  const { run } = await engineWith(source);
  assert.equal(JSON.parse(run('f')), Object.entries(SPEC_OVER_NODE20).map(([k, answer]) => `${k}: ${answer}`));
});

v('should accept jsonpath-plus\'s patterns, which stock quickjs-ng 0.17 refused', async () => {
  const { run } = await engineWith(String.raw`globalThis.f = () => Host.outputString(JSON.stringify([
    /^(-?\d*):(-?\d*):?(-?\d*)$/v.exec('1:-2:3').slice(1), '$;;a;;;b'.replaceAll(/;;;|;;/gv, ';..;'), /a-b/v.test('a-b'), /::/v.test('a::b'),
  ]));`);
  assert.equal(JSON.parse(run('f')), [['1', '-2', '3'], '$;..;a;..;b', true, true]);
});

v.run();
