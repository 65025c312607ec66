import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IrReadError } from './ir-version.ts';
import { v4FqName, v4Name, v4PackagePath, v4Type } from './v4-syntax.ts';

const names = suite('IR v4 syntax :: names, paths and FQNames');

for (const [input, canonical] of [
  ['as-of', 'as-of'],
  ['product-(i-d)', 'product-ID'],
  ['value-in-u-s-d', 'value-in-USD'],
  ['(a-p-i)-response', 'API-response'],
  ['APIResponse', 'API-response'],
  ['TestModule', 'test-module'],
  ['f-r-2052-a', 'FR-2052-a'],
  ['a', 'a'],
  [['a', 'p', 'i', 'response'], 'API-response'],
] as const) {
  names(`should read ${JSON.stringify(input)} as ${canonical}`, () => {
    assert.is(v4Name(input, '$'), canonical);
  });
}

names('should read FQNames and the SDK package in every spelling', () => {
  assert.is(v4FqName('regulation:u-s/f-r-2052-a/data-tables#inflows', '$'), 'regulation:US/FR-2052-a/data-tables#inflows');
  for (const sdk of ['morphir/sdk', 'morphir/s-d-k', 'morphir/SDK', 'Morphir/SDK']) assert.is(v4PackagePath(sdk, '$'), 'morphir/SDK', sdk);
  assert.is(v4FqName([['acme'], [['orders']], ['line', 'item']], '$'), 'acme:orders#line-item');
});

for (const [what, input] of [
  ['an empty name', ''],
  ['a name of dashes', '--'],
  ['a number', 7],
  ['a word that is not a string', ['a', 1]],
] as const) {
  names(`should refuse ${what} with invalid_ir naming the path`, () => {
    try {
      v4Name(input, 'types.x');
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, IrReadError);
      assert.is((error as IrReadError).code, 'invalid_ir');
      assert.match((error as Error).message, 'types.x');
    }
  });
}

names('should refuse FQNames without a module or a local name', () => {
  for (const bad of ['acme#x', 'acme:orders', ':orders#x', 'acme:orders#']) assert.throws(() => v4FqName(bad, '$'), (e: Error) => e instanceof IrReadError, bad);
});

names.run();

const types = suite('IR v4 syntax :: type expressions in every spelling');

const string = { kind: 'reference', source: 'morphir/SDK:string#string', args: [] };
const listOfA = { kind: 'reference', source: 'morphir/SDK:list#list', args: [{ kind: 'variable', name: 'a' }] };

for (const [what, input, expected] of [
  ['a compact reference', 'morphir/sdk:string#string', string],
  ['a wrapped reference', { Reference: { fqname: 'morphir/sdk:string#string' } }, string],
  ['a classic reference', ['Reference', {}, 'morphir/sdk:string#string', []], string],
  ['a compact application', ['morphir/sdk:list#list', 'a'], listOfA],
  ['a wrapped application', { Reference: { fqname: 'morphir/sdk:list#list', args: [{ Variable: { name: 'a' } }] } }, listOfA],
  ['a compact tuple', ['Tuple', 'a', 'b'], { kind: 'tuple', elements: [{ kind: 'variable', name: 'a' }, { kind: 'variable', name: 'b' }] }],
  ['a wrapped tuple', { Tuple: { elements: ['a'] } }, { kind: 'tuple', elements: [{ kind: 'variable', name: 'a' }] }],
  ['a compact function with attributes', ['Function', {}, 'a', 'b'], { kind: 'function', input: { kind: 'variable', name: 'a' }, output: { kind: 'variable', name: 'b' } }],
  ['a wrapped function', { Function: { arg: 'a', result: 'b' } }, { kind: 'function', input: { kind: 'variable', name: 'a' }, output: { kind: 'variable', name: 'b' } }],
  ['a unit', { Unit: {} }, { kind: 'unit' }],
  ['a record of fields', { Record: { b: 'a', a: 'morphir/sdk:string#string' } }, { kind: 'record', fields: [{ name: 'a', tpe: string }, { name: 'b', tpe: { kind: 'variable', name: 'a' } }] }],
  ['a record under "fields"', { Record: { fields: { a: 'morphir/sdk:string#string' } } }, { kind: 'record', fields: [{ name: 'a', tpe: string }] }],
  ['a record whose one field is called fields', { Record: { fields: 'morphir/sdk:string#string' } }, { kind: 'record', fields: [{ name: 'fields', tpe: string }] }],
  ['an extensible record', { ExtensibleRecord: { variable: 'r', fields: { a: 'a' } } }, { kind: 'extensible', variable: 'r', fields: [{ name: 'a', tpe: { kind: 'variable', name: 'a' } }] }],
] as const) {
  types(`should read ${what}`, () => {
    assert.equal(v4Type(input, '$'), expected);
  });
}

types('should refuse unknown tags, empty arrays and non-types with invalid_ir', () => {
  for (const bad of [[], { Lambda: {} }, { a: 1 }, 7, null, ['NotATag', 'a'], { Reference: { fqname: 'x' } }]) {
    assert.throws(() => v4Type(bad, '$'), (e: Error) => e instanceof IrReadError && (e as IrReadError).code === 'invalid_ir', JSON.stringify(bad));
  }
});

types.run();
