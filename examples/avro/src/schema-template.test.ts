import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AvroType, JsonValue } from './model.ts';
import { fillable, fillTemplate, holePaths, type SchemaTemplate } from './schema-template.ts';

const template = suite('avro :: schema templates (one JSON tree per named schema, filled per use)');

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
};

const named = (name: string): AvroType => ({ kind: 'named', fullName: { namespace: 'a', name } });
const decimal = deepFreeze({ logicalType: 'decimal', type: 'bytes' });
// A record `R { left: B, list: [C], pair: [null, D], amount: decimal }`, its holes holding full names.
const tree = deepFreeze({
  fields: [
    { name: 'left', type: 'a.B' },
    { name: 'list', type: { items: 'a.C', type: 'array' } },
    { name: 'pair', type: ['null', 'a.D'] },
    { name: 'amount', type: decimal },
  ],
  name: 'R',
  type: 'record',
});
const types: AvroType[] = [named('B'), { kind: 'array', items: named('C'), props: {} }, { kind: 'union', branches: [{ kind: 'primitive', name: 'null' }, named('D')] }];
const paths: (string | number)[][] = [];
types.forEach((tpe, i) => holePaths(tpe, ['fields', i, 'type'], paths));
const r: SchemaTemplate = { tree, holes: [{ namespace: 'a', name: 'B' }, { namespace: 'a', name: 'C' }, { namespace: 'a', name: 'D' }], paths };

template('should find each named type of a field where the renderer puts it', () => {
  assert.equal(paths, [
    ['fields', 0, 'type'],
    ['fields', 1, 'type', 'items'],
    ['fields', 2, 'type', 1],
  ]);
});

template('should copy only the way to a defined hole and leave the template as it was', () => {
  const c = { name: 'C', type: 'enum', symbols: ['X'] };
  const filled = fillTemplate(r, ['a.B', c, 'a.D']) as { fields: { type: JsonValue }[] };
  assert.equal(filled, { ...tree, fields: [tree.fields[0], { name: 'list', type: { items: c, type: 'array' } }, tree.fields[2], tree.fields[3]] });
  assert.is.not(filled, tree);
  assert.is(filled.fields[0], tree.fields[0], 'a field without a defined hole is shared');
  assert.is(filled.fields[3].type, decimal, 'a decorated primitive is shared');
  assert.is((tree.fields[1].type as { items: JsonValue }).items, 'a.C', 'the template keeps its full name');
  const second = fillTemplate(r, [c, 'a.C', c]) as { fields: { type: JsonValue }[] };
  assert.is(second.fields[0].type, c);
  assert.equal(second.fields[2].type, ['null', c]);
  assert.is(second.fields[1], tree.fields[1]);
});

template('should be the template itself when every named type in it is referenced', () => {
  assert.is(fillTemplate(r, ['a.B', 'a.C', 'a.D']), tree);
});

template('should leave a named type under a logical type over a composite type to the tree renderer', () => {
  assert.ok(fillable({ kind: 'logical', physical: { kind: 'primitive', name: 'bytes' }, logicalType: 'decimal', props: {} }));
  assert.not.ok(fillable({ kind: 'array', items: { kind: 'annotated', physical: named('B'), props: {} }, props: {} }));
});

template.run();
