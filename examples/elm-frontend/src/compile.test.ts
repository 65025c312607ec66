import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuthorDiagnostic, CompileAnswer, NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import { ErrorCode, isMepError } from '../../../host/src/protocol/errors.ts';
import { compileElm } from './compile.ts';
import { recordingContext, sharedWorker } from './testing.ts';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/ir/', import.meta.url));
const doc = (path: string, text: string) => ({ uri: `file:///w/src/${path}`, languageId: 'elm', version: 1, text });
const request = (documents: ReturnType<typeof doc>[], pkg: NormalizedCompileParams['package'], options?: NormalizedCompileParams['options']): NormalizedCompileParams => ({
  languageId: 'elm',
  sources: { root: 'file:///w/src/', documents },
  package: pkg,
  ...(options ? { options } : {}),
});
const compile = (params: NormalizedCompileParams): CompileAnswer => compileElm(params, sharedWorker(), recordingContext()) as CompileAnswer;
const only = (answer: CompileAnswer, code: string): AuthorDiagnostic => {
  const found = (answer.diagnostics ?? []).filter((d) => d.code === code);
  assert.is(found.length, 1, `one ${code} in ${JSON.stringify(answer.diagnostics)}`);
  return found[0];
};
const where = (d: AuthorDiagnostic) => (d.location ? `${d.location.uri.replace('file:///w/src/', '')}:${d.location.range.start.line}:${d.location.range.start.character}-${d.location.range.end.line}:${d.location.range.end.character}` : 'nowhere');
const modulesOf = (ir: Record<string, unknown> | null) => ((ir!.distribution as unknown[])[3] as { modules: [unknown, { access: string }][] }).modules.map(([p, m]) => `${JSON.stringify(p)}:${m.access}`);

const money = 'module Acme.Shop.Money exposing (Money, zero)\n\ntype alias Money =\n    Int\n\n\nzero : Money\nzero =\n    0\n';

const OneFile = suite('compileElm: the one-file path and package-relative names');

OneFile('should compile a module outside the synthesized package as relative to it', () => {
  const answer = compile(request([doc('Example.elm', 'module Example exposing (add)\n\nadd : Int -> Int -> Int\nadd a b =\n    a + b\n')], { name: 'local/example' }));
  assert.ok(answer.success, JSON.stringify(answer.diagnostics));
  assert.equal(answer.modules, ['Example']);
  assert.equal((answer.ir!.distribution as unknown[])[1], [['local'], ['example']]);
  assert.equal(modulesOf(answer.ir), ['[["example"]]:Public']);
  assert.equal(answer.diagnostics, []);
});

OneFile('should resolve imports between relative modules, with and without an alias', () => {
  const util = doc('Util.elm', 'module Util exposing (one, two)\n\none : Int\none =\n    1\n\n\ntwo : Int\ntwo =\n    2\n');
  const main = doc('Main.elm', 'module Main exposing (three)\n\nimport Util\nimport Util as U exposing (two)\n\n\nthree : Int\nthree =\n    Util.one + U.two + two\n');
  const answer = compile(request([main, util], { name: 'local/example', exposedModules: ['Main'] }));
  assert.ok(answer.success, JSON.stringify(answer.diagnostics));
  assert.equal(answer.modules, ['Main', 'Util']);
  assert.match(JSON.stringify(answer.ir), /\[\["local"\],\["example"\]\],\[\["util"\]\],\["one"\]/);
});

OneFile('should point errors on rewritten lines at the document\'s own text', () => {
  const main = doc('Main.elm', 'module Main exposing (x)\n\nimport Util exposing (nope)\n\n\nx : Int\nx =\n    nope\n');
  const util = doc('Util.elm', 'module Util exposing (one)\n\none : Int\none =\n    1\n');
  const answer = compile(request([main, util], { name: 'local/example' }));
  assert.not.ok(answer.success);
  assert.is(answer.ir, null);
  const d = only(answer, 'elm.resolve');
  assert.is(where(d), 'Main.elm:2:7-2:11');
  assert.match(d.message, /Util/);
  assert.not.match(d.message, /Local\.Example/);
});

const Errors = suite('compileElm: errors as located diagnostics');

Errors('should locate a syntax error, counting UTF-16 characters after a non-BMP character', () => {
  const answer = compile(request([doc('Acme/Shop/Money.elm', 'module Acme.Shop.Money exposing (x)\n\nx =\n    "😀" ++ ) \n')], { name: 'Acme.Shop' }));
  const d = only(answer, 'elm.parse');
  assert.is(d.severity, 'error');
  assert.is(d.location!.range.start.line, 3);
  assert.ok(d.location!.range.start.character >= 11, where(d));
  assert.is(answer.ir, null);
});

Errors('should point a type error at the declaration of the value', () => {
  const answer = compile(request([doc('Acme/Shop/Money.elm', 'module Acme.Shop.Money exposing (total)\n\n{-| Docs. -}\ntotal : Int -> String\ntotal x =\n    x + 1\n')], { name: 'Acme.Shop' }));
  const d = only(answer, 'elm.type');
  assert.is(where(d), 'Acme/Shop/Money.elm:3:0-3:5');
  assert.match(d.message, /String is not a number/);
});

Errors('should find the module of an unknown type that the compiler does not name', () => {
  const billing = doc('Acme/Shop/Billing.elm', 'module Acme.Shop.Billing exposing (total)\n\nimport Acme.Shop.Money exposing (Money)\n\n\ntotal : Money -> Foo\ntotal m =\n    m\n');
  const answer = compile(request([doc('Acme/Shop/Money.elm', money), billing], { name: 'Acme.Shop' }));
  const d = only(answer, 'elm.resolve');
  assert.is(where(d), 'Acme/Shop/Billing.elm:5:17-5:20');
});

Errors('should point an unknown name at its use and a missing module at its import', () => {
  const use = compile(request([doc('Acme/Shop/Money.elm', 'module Acme.Shop.Money exposing (x)\n\nx : Int\nx =\n    1 + undefinedThing\n')], { name: 'Acme.Shop' }));
  assert.is(where(only(use, 'elm.resolve')), 'Acme/Shop/Money.elm:4:8-4:22');
  const missing = compile(request([doc('Acme/Shop/Money.elm', 'module Acme.Shop.Money exposing (x)\n\nimport Acme.Shop.Nope exposing (y)\n\n\nx : Int\nx =\n    1\n')], { name: 'Acme.Shop' }));
  assert.is(where(only(missing, 'elm.resolve')), 'Acme/Shop/Money.elm:2:7-2:21');
});

Errors('should point a module cycle at the import that closes it', () => {
  const a = doc('Acme/Shop/A.elm', 'module Acme.Shop.A exposing (a)\n\nimport Acme.Shop.B\n\n\na : Int\na =\n    1\n');
  const b = doc('Acme/Shop/B.elm', 'module Acme.Shop.B exposing (b)\n\nimport Acme.Shop.A\n\n\nb : Int\nb =\n    2\n');
  const d = only(compile(request([a, b], { name: 'Acme.Shop' })), 'elm.module-cycle');
  assert.match(where(d), /^Acme\/Shop\/[AB]\.elm:2:7-2:18$/);
});

Errors('should report a source nested deeper than the stack as a diagnostic, and compile the next request', () => {
  const deep = compile(request([doc('Acme/Shop/Deep.elm', `module Acme.Shop.Deep exposing (x)\n\nx : Int\nx =\n    ${'('.repeat(5000)}1${')'.repeat(5000)}\n`)], { name: 'Acme.Shop' }));
  assert.not.ok(deep.success);
  assert.match(only(deep, 'elm.compiler').message, /nested too deeply/);
  assert.ok(compile(request([doc('Acme/Shop/Money.elm', money)], { name: 'Acme.Shop' })).success);
});

Errors('should refuse a module declared twice before compiling', () => {
  const answer = compile(request([doc('Acme/Shop/Money.elm', money), doc('Acme/Shop/Money2.elm', money)], { name: 'Acme.Shop' }));
  assert.is(where(only(answer, 'elm.duplicate-module')), 'Acme/Shop/Money2.elm:0:7-0:22');
  assert.not.ok(answer.success);
});

Errors('should warn about a module outside the package, which morphir-elm leaves out', () => {
  const answer = compile(request([doc('Acme/Shop/Money.elm', money), doc('Other/Thing.elm', 'module Other.Thing exposing (t)\n\nt : Int\nt =\n    1\n')], { name: 'Acme.Shop' }));
  assert.ok(answer.success);
  const d = only(answer, 'elm.module-outside-package');
  assert.is(d.severity, 'warning');
  assert.is(where(d), 'Other/Thing.elm:0:7-0:18');
  assert.equal(answer.modules, ['Money']);
});

const Visibility = suite('compileElm: package.exposedModules');

const shop = () => [
  doc('Acme/Shop/Money.elm', money),
  doc('Acme/Shop/Billing.elm', 'module Acme.Shop.Billing exposing (Invoice)\n\nimport Acme.Shop.Money exposing (Money)\n\n\ntype alias Invoice =\n    { amount : Money }\n'),
  doc('Acme/Shop/Unused.elm', 'module Acme.Shop.Unused exposing (u)\n\nu : Int\nu =\n    1\n'),
];

Visibility('should make every module public when the list is absent', () => {
  assert.equal(modulesOf(compile(request(shop(), { name: 'Acme.Shop' })).ir), ['[["billing"]]:Public', '[["money"]]:Public', '[["unused"]]:Public']);
});

Visibility('should make every module private for an empty list', () => {
  const answer = compile(request(shop(), { name: 'Acme.Shop', exposedModules: [] }));
  assert.equal(modulesOf(answer.ir), ['[["billing"]]:Private', '[["money"]]:Private', '[["unused"]]:Private']);
  assert.equal(answer.diagnostics, []);
});

Visibility('should keep morphir-elm\'s reading of a list and report where it differs', () => {
  const answer = compile(request(shop(), { name: 'Acme.Shop', exposedModules: ['Billing'] }));
  assert.ok(answer.success);
  assert.equal(modulesOf(answer.ir), ['[["billing"]]:Public', '[["money"]]:Public']);
  assert.is(where(only(answer, 'elm.module-implicitly-public')), 'Acme/Shop/Money.elm:0:0-0:0');
  assert.is(where(only(answer, 'elm.module-unreachable')), 'Acme/Shop/Unused.elm:0:0-0:0');
});

Visibility('should refuse names that match no module, suggesting the relative name for a full one', () => {
  const answer = compile(request(shop(), { name: 'Acme.Shop', exposedModules: ['Acme.Shop.Billing', 'Nope'] }));
  assert.not.ok(answer.success);
  const unknown = (answer.diagnostics ?? []).filter((d) => d.code === 'elm.unknown-exposed-module');
  assert.is(unknown.length, 2);
  assert.match(unknown[0].message, /relative to the package: Billing/);
});

const Output = suite('compileElm: IR versions, options and input checks');

Output('should convert to IR v4 on request and say what the conversion leaves out', () => {
  const answer = compile(request([doc('Acme/Shop/Money.elm', money)], { name: 'Acme.Shop' }, { irVersion: '4' }));
  assert.ok(answer.success);
  assert.is(answer.irVersion, '4');
  assert.is(answer.ir!.formatVersion, '4.0.0');
  assert.match(only(answer, 'elm.ir-v4-value-bodies').message, /1 value/);
});

Output('should leave value bodies out with typesOnly', () => {
  const answer = compile(request([doc('Acme/Shop/Money.elm', money)], { name: 'Acme.Shop' }, { typesOnly: true }));
  assert.ok(answer.success);
  assert.not.match(JSON.stringify(answer.ir), /"zero"/);
});

Output('should refuse what it cannot compile as invalid params', () => {
  const base = request([doc('Acme/Shop/Money.elm', money)], { name: 'Acme.Shop' });
  const cases: NormalizedCompileParams[] = [
    { ...base, languageId: 'gleam' },
    { ...base, sources: { ...base.sources, documents: [{ ...base.sources.documents[0], languageId: 'gleam' }] } },
    { ...base, options: { irVersion: '5' } },
    { ...base, options: { typesOnly: 'yes' as never } },
    { ...base, package: { name: '...' } },
    { ...base, dependencies: [{ packageName: 'acme/other', irVersion: '4', distribution: { formatVersion: '4.0.0' } }] },
    { ...base, sources: { root: 'file:///elsewhere/', documents: base.sources.documents } },
  ];
  for (const params of cases) {
    try {
      compile(params);
      assert.unreachable(JSON.stringify(params).slice(0, 200));
    } catch (error) {
      assert.ok(isMepError(error), String(error));
      assert.is(error.code, ErrorCode.InvalidParams);
    }
  }
});

Output('should give the committed fixture\'s IR for a morphir-elm project (showcase)', () => {
  const dir = join(FIXTURES, 'showcase');
  const project = JSON.parse(readFileSync(join(dir, 'morphir.json'), 'utf8')) as { name: string; sourceDirectory: string; exposedModules: string[] };
  const src = join(dir, project.sourceDirectory);
  const files: string[] = [];
  const walk = (d: string): void => readdirSync(d).forEach((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : n.endsWith('.elm') && files.push(join(d, n))));
  walk(src);
  const documents = files.sort().map((f) => ({ uri: `file:///w/src/${relative(src, f)}`, languageId: 'elm', version: 1, text: readFileSync(f, 'utf8') }));
  const answer = compile(request(documents, { name: project.name, exposedModules: project.exposedModules }));
  assert.ok(answer.success, JSON.stringify(answer.diagnostics));
  assert.equal(answer.ir, JSON.parse(readFileSync(join(dir, 'morphir-ir.json'), 'utf8')));
  assert.equal(answer.modules, ['Common', 'Internal', 'Orders']);
  assert.equal(answer.diagnostics, []);
});

OneFile.run();
Errors.run();
Visibility.run();
Output.run();
