import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { library, t, assertParsesWithAvsc } from './test-support.ts';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// Outputs of the reference Avro backend, copied from shared/reference/avro-golden (see its README).
const goldenDir = join(repo, 'fixtures', 'avro-golden');
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(repo, 'fixtures', 'ir', name, 'morphir-ir.json'), 'utf8'));
const golden = (file: string): string => readFileSync(join(goldenDir, file), 'utf8');

// Older goldens spell the customer's FQName in the legacy `Acme:Customer:Customer` form; our
// output uses the canonical spelling (as the newer goldens do), so only that field is rewritten.
const canonicalCustomer = (text: string): string => text.split('Acme:Customer:Customer').join('acme/customer:customer#customer');

// Entry points exist only in v4 Application distributions; IR v3 (what morphir-elm writes) has
// none, so these message properties of the golden cannot come from a v3 input.
function withoutEntryPoints(text: string): string {
  const protocol = JSON.parse(text) as { messages: Record<string, Record<string, unknown>> };
  for (const message of Object.values(protocol.messages)) {
    for (const key of Object.keys(message)) if (key.startsWith('morphir.entry-point')) delete message[key];
  }
  return canonical(protocol);
}

const sort = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sort) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v;
const canonical = (value: unknown): string => `${JSON.stringify(sort(value), null, 2)}\n`;

// Our one deliberate departure from the reference: for a root alias to another named schema it
// writes `{"morphir.fqname": alias, "type": {…named schema…}}`, which avsc and Avro Java reject
// (a schema object's `type` must be a type name). We write the named schema itself, with the
// alias's Avro full name in `aliases` and its FQName in `morphir.alias` (render-json.ts).
function asValidAvroRoot(text: string, aliasFullName: string): string {
  const golden = JSON.parse(text) as { 'morphir.fqname': string; type: Record<string, unknown> };
  return canonical({ ...golden.type, aliases: [aliasFullName], 'morphir.alias': golden['morphir.fqname'] });
}

const CUSTOM_TYPE_MAPPINGS = {
  'acme/customer:customer#legacy-date': { type: 'long', logical_type: 'date' },
  'acme/customer:customer#binary-id': { type: 'bytes', logical_type: 'uuid' },
  'acme/customer:customer#money': { type: 'bytes', logical_type: 'decimal', precision: 20, scale: 4 },
};

async function artifact(ir: unknown, options: Record<string, unknown>, path: string): Promise<string> {
  const result = generateAvro(ir, options);
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  await assertParsesWithAvsc(result.artifacts);
  const found = result.artifacts.find((a) => a.path === path);
  assert.ok(found, `no ${path} among ${result.artifacts.map((a) => a.path).join(', ')}`);
  return (found as { content: string }).content;
}

const elm = suite('goldens :: Elm models compiled by morphir-elm');

elm('should equal customer-schemas.avsc (legacy fqname normalized)', async () => {
  const out = await artifact(fixture('customer'), {}, 'acme/customer/customer/Customer.avsc');
  assert.is(out, canonicalCustomer(golden('customer-schemas.avsc')));
});

elm('should equal customer-public.avpr (legacy fqname normalized, v4 entry points removed)', async () => {
  const out = await artifact(fixture('customer'), { projection: 'protocol-public' }, 'acme/customer/Customer.avpr');
  assert.is(out, withoutEntryPoints(canonicalCustomer(golden('customer-public.avpr'))));
});

elm('should equal customer-schemas.avdl (legacy fqname normalized)', async () => {
  const out = await artifact(fixture('customer'), { representation: 'idl' }, 'acme/customer/customer/CustomerSchemas.avdl');
  assert.is(out, canonicalCustomer(golden('customer-schemas.avdl')));
});

elm('should equal edge-alias-wrapper.avsc byte for byte', async () => {
  const out = await artifact(fixture('customer-edges'), { aliases: 'wrapper-record' }, 'acme/customer/customer/CustomerLabels.avsc');
  assert.is(out, golden('edge-alias-wrapper.avsc'));
});

elm('should equal edge-generic-result.avsc (same digest) written as a valid Avro schema', async () => {
  const out = await artifact(fixture('customer-edges'), {}, 'acme/customer/customer/LookupResult.avsc');
  assert.is(out, asValidAvroRoot(golden('edge-generic-result.avsc'), 'acme.customer.customer.LookupResult'));
});

elm('should equal edge-partial.avsc byte for byte and warn about the skipped type', async () => {
  const out = await artifact(fixture('customer-partial'), { unsupported: 'warn-and-skip' }, 'acme/customer/customer/Supported.avsc');
  assert.is(out, golden('edge-partial.avsc'));
  const result = generateAvro(fixture('customer-partial'), { unsupported: 'warn-and-skip' });
  assert.equal(
    result.diagnostics.map((d) => [d.severity, d.code, d.location?.uri]),
    [['warning', 'AVRO001', 'morphir-fqname:acme/customer:customer#callback']],
  );
});

elm('should equal edge-logical-constants.avpr byte for byte', async () => {
  const out = await artifact(fixture('customer-logical'), { projection: 'protocol-public' }, 'acme/customer/Customer.avpr');
  assert.is(out, golden('edge-logical-constants.avpr'));
});

elm('should match edge-custom-types.avdl except what morphir-elm 2.82 cannot express', async () => {
  const options = { representation: 'idl', projection: 'protocol-public', type_mappings: CUSTOM_TYPE_MAPPINGS };
  const out = await artifact(fixture('customer-custom-types'), options, 'acme/customer/Customer.avdl');
  // morphir-elm's SDK has no UUID/Instant; Elm constructor arguments are positional (`arg1`);
  // a zero-argument Elm value is a constant, never a function.
  const expected = golden('edge-custom-types.avdl')
    .replace('    uuid identifier;\n', '')
    .replace('    @logicalType("timestamp-micros") long observedAt;\n', '')
    .replace('long radius;', 'long arg1;')
    .replace('@morphir.value-kind("function")\n  string `error`', '@morphir.value-kind("constant")\n  string `error`');
  assert.is(out, expected);
});

elm.run();

// The reference goldens come from in-memory "mothers" (tests/golden/mothers/customer.rs); the
// same models written as IR v3 JSON give the same artifacts.
const CUSTOMER = t.record([['name', t.string()], ['age', t.int()], ['active', t.bool()]]);
const customerMother = library('acme/customer', [
  {
    path: 'customer',
    doc: 'Customer operations.',
    types: [{ name: 'customer', doc: 'A customer record.', alias: CUSTOMER }],
    values: [
      { name: 'find-customer', doc: 'Documentation for find-customer.', inputs: [['id', t.string()]], output: t.ref('acme/customer:customer#customer') },
      { name: 'schema-version', doc: 'Documentation for schema-version.', output: t.string() },
    ],
  },
]);
const customTypesMother = library('acme/customer', [
  {
    path: 'customer',
    types: [
      {
        name: 'custom-values',
        alias: t.record([
          ['amount', t.ref('morphir/SDK:decimal#decimal')],
          ['as-of', t.ref('morphir/SDK:local-date#local-date')],
          ['identifier', t.ref('morphir/SDK:uuid#uuid')],
          ['mapped-date', t.ref('acme/customer:customer#legacy-date')],
          ['mapped-identifier', t.ref('acme/customer:customer#binary-id')],
          ['mapped-amount', t.ref('acme/customer:customer#money')],
          ['initial', t.ref('morphir/SDK:char#char')],
          ['labels', t.ref('morphir/SDK:dict#dict', t.string(), t.string())],
          ['nickname', t.ref('morphir/SDK:maybe#maybe', t.string())],
          ['observed-at', t.ref('morphir/SDK:instant#instant')],
          ['opens-at', t.ref('morphir/SDK:local-time#local-time')],
          ['record', t.string()],
          ['tags', t.ref('morphir/SDK:set#set', t.string())],
        ]),
      },
      { name: 'status', doc: 'Customer status.', custom: [['active', []], ['inactive', []]] },
      { name: 'shape', doc: 'A shape with payload constructors.', custom: [['point', []], ['circle', [['radius', t.int()]]]] },
      { name: 'legacy-date', custom: [['legacy-date', [['value', t.int()]]]], constructorsAccess: 'Private' },
      { name: 'binary-id', custom: [['binary-id', [['value', t.string()]]]], constructorsAccess: 'Private' },
      { name: 'money', custom: [['money', [['value', t.int()]]]], constructorsAccess: 'Private' },
    ],
    values: [
      { name: 'custom-defaults', doc: 'Documentation for custom-defaults.', output: t.ref('acme/customer:customer#custom-values') },
      { name: 'error', doc: 'Documentation for error.', output: t.string() },
    ],
  },
]);

const mothers = suite('goldens :: reference mothers written as IR v3');

mothers('should equal the customer goldens (legacy fqname normalized)', async () => {
  assert.is(await artifact(customerMother, {}, 'acme/customer/customer/Customer.avsc'), canonicalCustomer(golden('customer-schemas.avsc')));
  assert.is(
    await artifact(customerMother, { representation: 'idl' }, 'acme/customer/customer/CustomerSchemas.avdl'),
    canonicalCustomer(golden('customer-schemas.avdl')),
  );
  assert.is(
    await artifact(customerMother, { projection: 'protocol-public' }, 'acme/customer/Customer.avpr'),
    withoutEntryPoints(canonicalCustomer(golden('customer-public.avpr'))),
  );
});

mothers('should equal edge-custom-types.avdl except the zero-input function v3 cannot express', async () => {
  const options = { representation: 'idl', projection: 'protocol-public', type_mappings: CUSTOM_TYPE_MAPPINGS };
  const out = await artifact(customTypesMother, options, 'acme/customer/Customer.avdl');
  const expected = golden('edge-custom-types.avdl').replace(
    '@morphir.value-kind("function")\n  string `error`',
    '@morphir.value-kind("constant")\n  string `error`',
  );
  assert.is(out, expected);
});

mothers.run();
