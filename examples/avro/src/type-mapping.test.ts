import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { assertParsesWithAvsc, library, t } from './test-support.ts';

const sdk = (module: string, local = module, ...args: unknown[]): unknown => t.ref(`morphir/SDK:${module}#${local}`, ...args);

/** The Avro type of field `x` in a one-field record root. */
async function fieldType(tpe: unknown, options: Record<string, unknown> = {}): Promise<unknown> {
  const result = generateAvro(library('acme/app', [{ path: 'domain', types: [{ name: 'holder', alias: t.record([['x', tpe]]) }] }]), options);
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  await assertParsesWithAvsc(result.artifacts);
  return JSON.parse(result.artifacts[0].content).fields[0].type;
}

const mapping = suite('type mapping');

for (const [name, tpe, expected] of [
  ['Bool', t.bool(), 'boolean'],
  ['Int', t.int(), 'long'],
  ['Float', sdk('basics', 'float'), 'double'],
  ['String', t.string(), 'string'],
  ['Char', sdk('char'), { 'morphir.type': 'Char', type: 'string' }],
  ['Unit', t.unit(), 'null'],
  ['Maybe', sdk('maybe', 'maybe', t.string()), ['null', 'string']],
  ['List', sdk('list', 'list', t.int()), { items: 'long', type: 'array' }],
  ['Set', sdk('set', 'set', t.int()), { items: 'long', 'morphir.collection-kind': 'set', type: 'array' }],
  ['Dict String', sdk('dict', 'dict', t.string(), t.bool()), { type: 'map', values: 'boolean' }],
  ['LocalDate', sdk('local-date'), { logicalType: 'date', type: 'int' }],
  ['LocalTime', sdk('local-time'), { logicalType: 'time-micros', type: 'long' }],
  ['Instant', sdk('instant'), { logicalType: 'timestamp-micros', type: 'long' }],
  ['DateTime', sdk('date-time'), { logicalType: 'timestamp-micros', type: 'long' }],
  ['UUID', sdk('uuid'), { logicalType: 'uuid', type: 'string' }],
  ['Decimal', sdk('decimal'), { logicalType: 'decimal', precision: 38, scale: 10, type: 'bytes' }],
] as const) {
  mapping(`should map ${name}`, async () => {
    assert.equal(await fieldType(tpe), expected);
  });
}

mapping('should name a tuple record by the digest of its element types', async () => {
  const tuple = (await fieldType(t.tuple(t.int(), t.string()))) as { name: string; fields: unknown[]; 'morphir.type': string };
  assert.match(tuple.name, /^Tuple_[0-9a-f]{12}$/);
  assert.equal(tuple.fields, [{ name: 'item1', type: 'long' }, { name: 'item2', type: 'string' }]);
  assert.is(tuple['morphir.type'], 'Tuple');
});

mapping('should name a Result record Result<E><A>_<digest> with Err/Ok branches', async () => {
  const result = (await fieldType(sdk('result', 'result', t.string(), t.int()))) as { name: string; fields: { type: { name: string }[] }[] };
  assert.match(result.name, /^ResultStringInt_[0-9a-f]{12}$/);
  assert.equal(result.fields[0].type.map((b) => b.name), ['Err', 'Ok']);
});

mapping('should specialize a generic record alias by type application', async () => {
  const ir = library('acme/app', [
    {
      path: 'domain',
      types: [
        { name: 'labelled', params: ['a'], alias: t.record([['label', t.string()], ['value', t.var('a')]]) },
        { name: 'holder', alias: t.record([['x', t.ref('acme/app:domain#labelled', t.int())], ['y', t.ref('acme/app:domain#labelled', t.int())]]) },
      ],
    },
  ]);
  const result = generateAvro(ir, { unsupported: 'warn-and-skip' });
  const holder = JSON.parse(result.artifacts.find((a) => a.path.endsWith('Holder.avsc'))?.content ?? '{}');
  assert.match(holder.fields[0].type.name, /^LabelledInt_[0-9a-f]{12}$/);
  assert.is(holder.fields[1].type, `acme.app.domain.${holder.fields[0].type.name}`);
  assert.equal(holder.fields[0].type.fields[1], { name: 'value', type: 'long' });
  await assertParsesWithAvsc(result.artifacts);
});

mapping('should map an enum, a payload custom type and a recursive custom type', async () => {
  const ir = library('acme/app', [
    {
      path: 'domain',
      types: [
        { name: 'colour', custom: [['red', []], ['dark-blue', []]] },
        { name: 'tree', custom: [['leaf', [['value', t.int()]]], ['node', [['left', t.ref('acme/app:domain#tree')], ['right', t.ref('acme/app:domain#tree')]]]] },
      ],
    },
  ]);
  const result = generateAvro(ir, {});
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  await assertParsesWithAvsc(result.artifacts);
  const colour = JSON.parse(result.artifacts[0].content);
  // Constructors are ordered by canonical source FQName, as in the reference.
  assert.equal([colour.type, colour.symbols], ['enum', ['DarkBlue', 'Red']]);
  const tree = JSON.parse(result.artifacts[1].content);
  assert.equal(tree.fields[0].type.map((b: { namespace: string; name: string }) => `${b.namespace}.${b.name}`), [
    'acme.app.domain.Tree.Leaf',
    'acme.app.domain.Tree.Node',
  ]);
  assert.equal(tree.fields[0].type[1].fields[0].type, 'acme.app.domain.Tree');
});

mapping.run();
