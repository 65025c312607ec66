import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { dependency, library, t, type ModuleSpec } from './test-support.ts';

const codesOf = (ir: unknown, options: Record<string, unknown> = {}): [string | undefined, string | undefined][] =>
  generateAvro(ir, options).diagnostics.map((d) => [d.code, d.location?.uri]);
const one = (types: ModuleSpec['types'], values: ModuleSpec['values'] = []): unknown => library('acme/app', [{ path: 'domain', types, values }]);
const at = (local: string): string => `morphir-fqname:acme/app:domain#${local}`;

const codes = suite('diagnostics :: AVRO001–006 name the FQName');

codes('AVRO001 for a function-typed field', () => {
  assert.equal(codesOf(one([{ name: 'handler', alias: t.record([['run', t.fn(t.string(), t.string())]]) }])), [['AVRO001', at('handler')]]);
});

codes('AVRO001 for an extensible record, an SDK type without mapping and a non-string Dict key', () => {
  const ir = one([
    { name: 'ext', alias: t.extensible('r', [['x', t.int()]]) },
    { name: 'month', alias: t.ref('morphir/SDK:month#month') },
    { name: 'by-id', alias: t.ref('morphir/SDK:dict#dict', t.int(), t.string()) },
  ]);
  assert.equal(codesOf(ir), [['AVRO001', at('by-id')], ['AVRO001', at('ext')], ['AVRO001', at('month')]]);
});

codes('AVRO001 for a reference to an undeclared type (self-contained)', () => {
  assert.equal(codesOf(one([{ name: 'holder', alias: t.record([['x', t.ref('other/pkg:m#thing')]]) }])), [['AVRO001', at('holder')]]);
});

codes('AVRO002 for a generic root and for a free type variable', () => {
  const ir = one([
    { name: 'box', params: ['a'], alias: t.record([['value', t.var('a')]]) },
    { name: 'loose', alias: t.record([['value', t.var('b')]]) },
  ]);
  assert.equal(codesOf(ir), [['AVRO002', at('box')], ['AVRO002', at('loose')]]);
});

codes('AVRO003 when two declarations claim one Avro name', () => {
  const ir = one([
    { name: 'USD', alias: t.record([['v', t.string()]]) },
    { name: 'usd', alias: t.record([['v', t.string()]]) },
  ]);
  // ['u','s','d'] (canonical `USD`) and ['usd'] both become the Avro name `Usd`.
  assert.equal(codesOf(ir), [['AVRO003', at('USD')], ['AVRO003', at('usd')]]);
});

codes('AVRO003 for constructors with the same Avro name and for colliding message names', () => {
  const ctor = one([{ name: 'shape', custom: [['usd', [['x', t.int()]]], ['USD', [['y', t.int()]]]] }]);
  assert.equal(codesOf(ctor), [['AVRO003', at('USD')], ['AVRO003', at('usd')]]);
  const messages = library('acme/app', [
    { path: 'domain', values: [{ name: 'usd', output: t.string() }, { name: 'USD', output: t.string() }] },
  ]);
  const result = generateAvro(messages, { projection: 'protocol-public' });
  assert.ok(result.diagnostics.length === 2 && result.diagnostics.every((d) => d.code === 'AVRO003'));
});

codes('AVRO005 for recursion through a growing generic application', () => {
  const ir = one([
    { name: 'nest', params: ['a'], custom: [['leaf', [['v', t.var('a')]]], ['deeper', [['n', t.ref('acme/app:domain#nest', t.ref('morphir/SDK:list#list', t.var('a')))]]]] },
    { name: 'use', alias: t.record([['n', t.ref('acme/app:domain#nest', t.int())]]) },
  ]);
  const uses = codesOf(ir, { unsupported: 'warn-and-skip' }).filter(([, uri]) => uri === at('use'));
  assert.equal(uses, [['AVRO005', at('use')]]);
});

codes('AVRO006 for a linked dependency type missing from the IR', () => {
  const ir = library(
    'acme/app',
    [{ path: 'domain', types: [{ name: 'holder', alias: t.record([['x', t.ref('shared/base:ids#missing')]]) }] }],
    [dependency('shared/base', [{ path: 'ids', types: [{ name: 'id', alias: t.string() }] }])],
  );
  assert.equal(codesOf(ir, { dependencies: 'linked' }), [['AVRO006', at('holder')]]);
});

codes('diagnostics are warnings under warn-and-skip and errors otherwise', () => {
  const ir = one([{ name: 'f', alias: t.fn(t.unit(), t.unit()) }, { name: 'ok', alias: t.string() }]);
  const strict = generateAvro(ir, {});
  const lenient = generateAvro(ir, { unsupported: 'warn-and-skip' });
  assert.equal([strict.success, strict.diagnostics[0].severity, strict.artifacts.length], [false, 'error', 0]);
  assert.equal([lenient.success, lenient.diagnostics[0].severity, lenient.artifacts.length], [true, 'warning', 1]);
  assert.equal(lenient.diagnostics[0].location?.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
});

codes('a failed root leaves no schema behind (transactional projection)', () => {
  const ir = one([
    { name: 'bad', alias: t.record([['pair', t.tuple(t.int(), t.string())], ['f', t.fn(t.unit(), t.unit())]]) },
    { name: 'good', alias: t.record([['v', t.unit()]]) },
  ]);
  const result = generateAvro(ir, { unsupported: 'warn-and-skip' });
  assert.equal(result.artifacts.map((a) => a.path), ['acme/app/domain/Good.avsc']);
  assert.not.match(result.artifacts[0].content, /Tuple_/);
});

codes.run();
