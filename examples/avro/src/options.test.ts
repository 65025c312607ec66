import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { DEFAULT_OPTIONS, parseOptions } from './options.ts';
import { assertParsesWithAvsc, library, t } from './test-support.ts';

const ir = library('acme/shop', [
  {
    path: 'orders',
    types: [
      { name: 'order', alias: t.record([['amount', t.ref('morphir/SDK:decimal#decimal')], ['on', t.ref('morphir/SDK:local-date#local-date')], ['id', t.ref('acme/shop:orders#order-id')]]) },
      { name: 'order-id', alias: t.string() },
      { name: 'money', custom: [['money', [['cents', t.int()]]]], constructorsAccess: 'Private' },
    ],
    values: [{ name: 'total', inputs: [['order', t.ref('acme/shop:orders#order')]], output: t.ref('morphir/SDK:decimal#decimal') }],
  },
]);
const ok = { type_mappings: { 'acme/shop:orders#money': { type: 'bytes', logical_type: 'decimal' } } };
const content = (options: Record<string, unknown>, path: string): string => {
  const result = generateAvro(ir, { ...ok, ...options });
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  const artifact = result.artifacts.find((a) => a.path === path);
  assert.ok(artifact, `no ${path} in ${result.artifacts.map((a) => a.path).join(', ')}`);
  return (artifact as { content: string }).content;
};

const parse = suite('parseOptions');

parse('should apply the reference defaults', () => {
  assert.equal(parseOptions({}), DEFAULT_OPTIONS);
  assert.equal(parseOptions(undefined), DEFAULT_OPTIONS);
});

for (const [name, options] of [
  ['unknown key', { colour: 'blue' }],
  ['bad representation', { representation: 'xml' }],
  ['bad projection', { projection: 'all' }],
  ['bad dependencies', { dependencies: 'bundled' }],
  ['bad aliases', { aliases: 'keep' }],
  ['bad unsupported', { unsupported: 'ignore' }],
  ['bad constructor_namespace', { constructor_namespace: 'Type' }],
  ['constructor_namespace not a string', { constructor_namespace: true }],
  ['bad idl_property_names', { idl_property_names: 'underscored' }],
  ['logical_types not boolean', { logical_types: 'yes' }],
  ['decimal_precision zero', { decimal_precision: 0 }],
  ['decimal_precision negative', { decimal_precision: -1 }],
  ['decimal_precision fractional', { decimal_precision: 1.5 }],
  ['decimal_scale above precision', { decimal_precision: 4, decimal_scale: 5 }],
  ['type_mappings not an object', { type_mappings: [] }],
  ['mapping with unknown field', { type_mappings: { 'a:b#c': { type: 'string', size: 4 } } }],
  ['mapping physical type unknown', { type_mappings: { 'a:b#c': { type: 'fixed' } } }],
  ['mapping decimal not bytes', { type_mappings: { 'a:b#c': { type: 'string', logical_type: 'decimal' } } }],
  ['mapping precision without decimal', { type_mappings: { 'a:b#c': { type: 'bytes', precision: 4 } } }],
  ['mapping scale above precision', { type_mappings: { 'a:b#c': { type: 'bytes', logical_type: 'decimal', precision: 4, scale: 5 } } }],
  ['options not an object', 'fast'],
] as const) {
  parse(`should reject ${name} as AVRO004 before reading the IR`, () => {
    const result = generateAvro({ not: 'an IR' }, options as unknown as Record<string, unknown>);
    assert.is(result.success, false);
    assert.is(result.artifacts.length, 0);
    assert.is(result.diagnostics.length, 1);
    assert.is(result.diagnostics[0].code, 'AVRO004');
    assert.is(result.diagnostics[0].severity, 'error');
  });
}

parse('should locate a type mapping error at its FQName', () => {
  const result = generateAvro(ir, { type_mappings: { 'acme/shop:orders#money': { type: 'string', logical_type: 'decimal' } } });
  assert.is(result.diagnostics[0].location?.uri, 'morphir-fqname:acme/shop:orders#money');
});

parse('should report the first invalid key in sorted order, whatever the map order', () => {
  const a = generateAvro(ir, { projection: 'x', aliases: 'y' });
  const b = generateAvro(ir, { aliases: 'y', projection: 'x' });
  assert.equal(a, b);
  assert.match(a.diagnostics[0].message, /aliases/);
});

parse.run();

const effects = suite('options :: effect on artifacts');

effects('representation=idl should write .avdl wrappers', async () => {
  const result = generateAvro(ir, { ...ok, representation: 'idl' });
  assert.equal(result.artifacts.map((a) => a.path).sort(), [
    'acme/shop/orders/MoneySchemas.avdl',
    'acme/shop/orders/OrderIdSchemas.avdl',
    'acme/shop/orders/OrderSchemas.avdl',
  ]);
  await assertParsesWithAvsc(result.artifacts);
});

effects('projection=protocol-public should write one .avpr per module with every public value', async () => {
  const result = generateAvro(ir, { ...ok, projection: 'protocol-public' });
  const protocol = JSON.parse(content({ projection: 'protocol-public' }, 'acme/shop/Orders.avpr'));
  assert.equal(Object.keys(protocol.messages), ['total']);
  assert.equal(protocol.messages.total.request, [{ name: 'order', type: 'acme.shop.orders.Order' }]);
  // The record root travels in the protocol's types, so it gets no .avsc of its own.
  assert.not.ok(result.artifacts.some((a) => a.path === 'acme/shop/orders/Order.avsc'));
  await assertParsesWithAvsc(result.artifacts);
});

effects('projection=protocol-entry-points should select no messages from IR v3 (no entry points)', async () => {
  const protocol = JSON.parse(content({ projection: 'protocol-entry-points' }, 'acme/shop/Orders.avpr'));
  assert.equal(protocol.messages, {});
  assert.is(protocol.types[0].name, 'Order');
});

effects('aliases=wrapper-record should wrap a non-record alias', () => {
  const schema = JSON.parse(content({ aliases: 'wrapper-record' }, 'acme/shop/orders/OrderId.avsc'));
  assert.equal(schema.fields, [{ name: 'value', type: 'string' }]);
  assert.is(schema.type, 'record');
});

effects('aliases=inline should inline a non-record alias', () => {
  assert.equal(JSON.parse(content({}, 'acme/shop/orders/OrderId.avsc')), { 'morphir.fqname': 'acme/shop:orders#order-id', type: 'string' });
});

effects('logical_types=false should drop logical types', () => {
  const schema = JSON.parse(content({ logical_types: false }, 'acme/shop/orders/Order.avsc'));
  assert.equal(schema.fields.map((f: { type: unknown }) => f.type), ['bytes', 'string', 'int']);
});

effects('decimal_precision and decimal_scale should configure Decimal', () => {
  const schema = JSON.parse(content({ decimal_precision: 20, decimal_scale: 2 }, 'acme/shop/orders/Order.avsc'));
  assert.equal(schema.fields[0].type, { logicalType: 'decimal', precision: 20, scale: 2, type: 'bytes' });
});

effects('type_mappings should override a declaration and its references', () => {
  const schema = JSON.parse(content(
      { type_mappings: { ...ok.type_mappings, 'acme/shop:orders#order-id': { type: 'string', logical_type: 'uuid' } } },
      'acme/shop/orders/Order.avsc',
    ));
  assert.equal(schema.fields[1].type, { logicalType: 'uuid', 'morphir.fqname': 'acme/shop:orders#order-id', type: 'string' });
  assert.equal(JSON.parse(content({}, 'acme/shop/orders/Money.avsc')), {
    logicalType: 'decimal',
    'morphir.fqname': 'acme/shop:orders#money',
    precision: 38,
    scale: 10,
    type: 'bytes',
  });
});

effects('unsupported=error should fail with zero artifacts; warn-and-skip should keep the rest', () => {
  const strict = generateAvro(ir, {});
  assert.is(strict.success, false);
  assert.is(strict.artifacts.length, 0);
  assert.equal(strict.diagnostics.map((d) => [d.severity, d.code, d.location?.uri]), [['error', 'AVRO001', 'morphir-fqname:acme/shop:orders#money']]);
  const lenient = generateAvro(ir, { unsupported: 'warn-and-skip' });
  assert.is(lenient.success, true);
  assert.equal(lenient.artifacts.map((a) => a.path).sort(), ['acme/shop/orders/Order.avsc', 'acme/shop/orders/OrderId.avsc']);
  assert.equal(lenient.diagnostics.map((d) => [d.severity, d.code, d.location?.uri]), [['warning', 'AVRO001', 'morphir-fqname:acme/shop:orders#money']]);
});

effects('constructor_namespace=lowercase-type should name constructor records under the type in lower case', () => {
  const custom = library('acme/shop', [
    { path: 'billing', types: [{ name: 'payment-method', custom: [['cash', []], ['voucher', [['code', t.string()]]]] }, { name: 'invoice', alias: t.record([['paid', t.ref('acme/shop:billing#payment-method')]]) }] },
  ]);
  const namespaces = (options: Record<string, unknown>): string[] => {
    const schema = JSON.parse((generateAvro(custom, options).artifacts.find((a) => a.path.endsWith('/Invoice.avsc')) as { content: string }).content);
    return schema.fields[0].type.fields[0].type.map((branch: { namespace: string; name: string }) => `${branch.namespace}.${branch.name}`);
  };
  assert.equal(namespaces({}), ['acme.shop.billing.PaymentMethod.Cash', 'acme.shop.billing.PaymentMethod.Voucher']);
  assert.equal(namespaces({ constructor_namespace: 'type' }), namespaces({}));
  assert.equal(namespaces({ constructor_namespace: 'lowercase-type' }), ['acme.shop.billing.paymentmethod.Cash', 'acme.shop.billing.paymentmethod.Voucher']);
});

effects('constructor_namespace=lowercase-type should report AVRO003 when a type already holds the name', () => {
  // Module `billing.paymentmethod` declares Voucher, as the lower-cased constructor namespace of billing's PaymentMethod does.
  const clash = library('acme/shop', [
    { path: 'billing', types: [{ name: 'payment-method', custom: [['voucher', [['code', t.string()]]]] }] },
    { path: 'billing/paymentmethod', types: [{ name: 'voucher', alias: t.record([['code', t.int()]]) }] },
  ]);
  assert.ok(generateAvro(clash, {}).success);
  const result = generateAvro(clash, { constructor_namespace: 'lowercase-type' });
  assert.is(result.success, false);
  assert.ok(result.diagnostics.some((d) => d.code === 'AVRO003'), JSON.stringify(result.diagnostics));
});

effects('idl_property_names=hyphenated should write @morphir-fqname for every property name with a dot', () => {
  const dotted = content({ representation: 'idl' }, 'acme/shop/orders/OrderSchemas.avdl');
  const hyphenated = content({ representation: 'idl', idl_property_names: 'hyphenated' }, 'acme/shop/orders/OrderSchemas.avdl');
  assert.match(dotted, /@morphir\.fqname\(/);
  assert.not.match(hyphenated, /@morphir\./);
  assert.match(hyphenated, /@morphir-fqname\("acme\/shop:orders#order"\)/);
  // Nothing else changes: the same text with the names spelled back.
  assert.is(hyphenated.replace(/@morphir-/g, '@morphir.'), dotted);
  assert.equal(generateAvro(ir, { ...ok, idl_property_names: 'hyphenated' }), generateAvro(ir, ok), 'JSON output is not affected');
});

effects.run();
