import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import avsc from 'avsc';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { assertParsesWithAvsc } from './test-support.ts';
import { convertV3ToV4 } from './v3-to-v4.ts';

// Goldens of our own output for fixtures/ir/orders (an Elm model compiled by morphir-elm 2.82.0):
// the cases the reference mapping gets wrong or refuses. `UPDATE_GOLDEN=1 npm test -- elm-golden`
// rewrites them after a deliberate change; review the diff before committing.
const model = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'ir', 'orders');
const ir = JSON.parse(readFileSync(join(model, 'morphir-ir.json'), 'utf8')) as unknown;
const CASES: Record<string, Record<string, unknown>> = {
  json: { unsupported: 'warn-and-skip' },
  idl: { unsupported: 'warn-and-skip', representation: 'idl' },
  protocol: { unsupported: 'warn-and-skip', projection: 'protocol-public' },
};

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

const goldens = suite('Elm goldens :: orders (root aliases to named types, anonymous records)');

for (const [name, options] of Object.entries(CASES)) {
  goldens(`should equal fixtures/ir/orders/expected/${name} byte for byte, and parse in avsc`, async () => {
    const result = generateAvro(ir, options);
    assert.ok(result.success, JSON.stringify(result.diagnostics));
    // `Pair a` is generic: only its instantiations are schemas (the reference's AVRO002 for a generic root).
    assert.equal(result.diagnostics.map((d) => [d.code, d.location?.uri]), [['AVRO002', 'morphir-fqname:acme/orders:orders#pair']]);
    await assertParsesWithAvsc(result.artifacts);
    const dir = join(model, 'expected', name);
    if (process.env.UPDATE_GOLDEN === '1') {
      rmSync(dir, { recursive: true, force: true });
      for (const a of result.artifacts) {
        mkdirSync(dirname(join(dir, a.path)), { recursive: true });
        writeFileSync(join(dir, a.path), a.content);
      }
    }
    const expected = listFiles(dir).map((f) => relative(dir, f)).sort();
    assert.equal(result.artifacts.map((a) => a.path).sort(), expected);
    for (const a of result.artifacts) assert.is(a.content, readFileSync(join(dir, a.path), 'utf8'), a.path);
    // The same model as IR v4 gives the same artifacts.
    assert.equal(generateAvro(convertV3ToV4(ir), options), result);
  });
}

goldens('should write SkuPair as the instantiated record, named by its alias too', () => {
  const result = generateAvro(ir, CASES.json);
  const schema = JSON.parse(result.artifacts.find((a) => a.path.endsWith('/SkuPair.avsc'))?.content ?? '{}');
  assert.equal([schema.type, schema.name, schema.aliases, schema['morphir.alias']], ['record', 'PairSku_1ce9b4af10f3', ['acme.orders.orders.SkuPair'], 'acme/orders:orders#sku-pair']);
  const type = avsc.Type.forSchema(schema);
  assert.equal(type.aliases, ['acme.orders.orders.SkuPair']);
  // Data written by a schema that calls the record SkuPair resolves against this one by its alias.
  const writer = avsc.Type.forSchema({ type: 'record', name: 'acme.orders.orders.SkuPair', fields: schema.fields });
  const resolver = type.createResolver(writer);
  assert.equal({ ...(type.fromBuffer(writer.toBuffer({ first: 'a', second: 'b' }), resolver) as object) }, { first: 'a', second: 'b' });
  const maybe = JSON.parse(result.artifacts.find((a) => a.path.endsWith('/MaybeSku.avsc'))?.content ?? '{}');
  assert.equal(maybe, ['null', 'string']);
});

goldens('should name anonymous records after their position, so Invoice and Shipment are generated', () => {
  const result = generateAvro(ir, CASES.json);
  const names = new Set<string>();
  for (const a of result.artifacts) {
    avsc.Type.forSchema(JSON.parse(a.content), { typeHook: (s: { name?: string; namespace?: string }) => void (s.name && names.add(`${s.namespace ?? ''}.${s.name}`)) } as never);
  }
  for (const expected of [
    'acme.orders.orders.PaymentMethod.BankTransferArg1',
    'acme.orders.orders.PaymentMethod.ChequeArg1',
    'acme.orders.orders.PaymentMethod.ChequeArg2',
    'acme.orders.orders.ShipmentDestination',
  ]) {
    assert.ok(names.has(expected), `${expected} not among ${[...names].join(', ')}`);
  }
  const invoice = avsc.Type.forSchema(JSON.parse(result.artifacts.find((a) => a.path.endsWith('/Invoice.avsc'))?.content ?? '{}'));
  const value = {
    items: { first: 'A-1', second: 'B-2' },
    number: 7,
    payment: { value: { 'acme.orders.orders.PaymentMethod.BankTransfer': { arg1: { iban: 'DE00', reference: 'inv 7' } } } },
  };
  assert.equal(invoice.fromBuffer(invoice.toBuffer(value)), invoice.fromBuffer(invoice.toBuffer(invoice.clone(value))));
  assert.ok(invoice.isValid(value));
});

goldens.run();
