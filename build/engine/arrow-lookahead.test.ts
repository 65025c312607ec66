/**
 * The parser's arrow-function look-ahead (build/engine/patches/parse.ts) against V8: "(function"
 * is answered "not an arrow" at once, so every parenthesized form around it, and each arrow whose
 * parameters or defaults hold functions, must parse as V8 parses it, errors included.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { engineWith, inV8 } from './v8-compare.ts';

const SOURCE = String.raw`globalThis.f = () => {
  const cases = [
    '(function () { return 1; })()',
    '(function () { return 2; }())',
    '((function () { return 3; }))()',
    '(/* c */ function named() { return named.name; })()',
    '(a = function () { return 4; }) => a()',
    '((a = function () { return 5; }) => a())()',
    '(functional => functional + 1)(5)',
    '((functionX) => functionX * 2)(4)',
    '(function () {}) => 1',
    '(function () {})\n=> 1',
    '(a, function () {}) => 1',
    'var async = (g) => g(); async(function () { return 6; })',
    'async (function () { return 7; }) => 1',
    'typeof (async (x = function () {}) => x)',
    '((a)) => 1',
    '(1) => 2',
    '("s") => 3',
    '(-x) => 4',
    '(!x)',
    '(([a]) => a)([8])',
    '(({ a }) => a)({ a: 9 })',
    '((...r) => r.length)(1, 2)',
    '((\\u0061) => \\u0061)(10)',
    '((await) => await)(11)',
    '(() => 12)()',
    '(((x) => x * 13))(1)',
    '(/re/).source',
    '(.5 + 1)',
    'var a = { b: 14 }; (a.b)',
    '(a.b) => 1',
    '(a || function () { return 15; })()',
    '((a, b = a || function () {}, c = (a.b)) => b)(16)',
    '((a, [b] = [a], { c } = { c: a }, ...d) => b + c)(17)',
    '(x in {})',
    '(a b) => 1',
    '(a,\n b) => 18',
  ];
  const out = cases.map((c) => {
    try { const v = (0, eval)(c); return typeof v === 'function' ? 'function' : v; } catch (e) { return e.constructor.name; }
  });
  Host.outputString(JSON.stringify(out));
};`;

const arrows = suite('engine :: arrow look-ahead on "(function" (patches/parse.ts)');

arrows('should parse parenthesized functions and arrows as V8 does, syntax errors included', async () => {
  const { run } = await engineWith(SOURCE);
  const v8 = JSON.parse(inV8(SOURCE, 'f'));
  assert.equal(v8.slice(0, 3), [1, 2, 3]);
  assert.equal(v8.slice(8, 11), ['SyntaxError', 'SyntaxError', 'SyntaxError']);
  assert.equal(JSON.parse(run('f')), v8);
});

arrows.run();
