import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import avsc from 'avsc';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkWithApacheAvroJava, type JavaPart, type JavaUnit, type JavaUnitVerdict } from './apache-avro-java.ts';
import { generateAvro } from './generate.ts';
import type { Artifact } from './json-syntax.ts';
import { LOAD_ORDER_PATH } from './render-json.ts';
import { byLoadOrder } from './test-support.ts';
import { seededSample } from '../../../fixtures/testing/tier.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'ir');
const irOf = (model: string): unknown => JSON.parse(readFileSync(join(fixtures, model, 'morphir-ir.json'), 'utf8'));
const elmModels = readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'reference').map((d) => d.name);
/** The options that make every output usable from Java. */
const JAVA = { constructor_namespace: 'lowercase-type', idl_property_names: 'hyphenated' } as const;
/** Every representation and layout, and how Java reads it: one parser for all, or one per file. */
const LAYOUTS: readonly { options: Record<string, string>; parser: JavaPart['parser'] }[] = [
  { options: {}, parser: 'per-file' },
  { options: { dependencies: 'linked' }, parser: 'by-name' },
  { options: { dependencies: 'shared' }, parser: 'shared' },
  { options: { projection: 'protocol-public' }, parser: 'per-file' },
  { options: { dependencies: 'shared', projection: 'protocol-public' }, parser: 'shared' },
  { options: { representation: 'idl' }, parser: 'per-file' },
  { options: { representation: 'idl', dependencies: 'linked' }, parser: 'per-file' },
  { options: { representation: 'idl', projection: 'protocol-public' }, parser: 'per-file' },
];

function generated(model: string, options: Record<string, unknown>): Artifact[] {
  const result = generateAvro(irOf(model), { unsupported: 'warn-and-skip', ...options });
  assert.ok(result.success, `${model} ${JSON.stringify(options)}: ${JSON.stringify(result.diagnostics)}`);
  return result.artifacts;
}

/** The shared layout's files as Java loads them: the `.avsc` in the index's order (a `.avpr` cannot take a parser's names). */
const sharedSchemas = (artifacts: readonly Artifact[]): Artifact[] => byLoadOrder(artifacts).filter((a) => a.path.endsWith('.avsc'));

const summary = (unit: JavaUnitVerdict): string =>
  `${unit.name}: ${unit.failures.length} failure(s): ${[...new Set(unit.failures.map((f) => `${f.stage} ${f.file.split('/').pop()}: ${f.error.split('\n')[0]}`))].slice(0, 4).join(' | ')}`;

/** The Shop model as Java generates it, for the probe: a payment built with the generated builders. */
const SHOP_PROBE = `
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Base64;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import shop.billing.PaymentMethod;
import shop.billing.paymentmethod.Voucher;
import shop.billing.paymentmethod.VoucherArg1;
import shop.catalog.Price;

public class ShopProbe {
  public static Object run() throws Exception {
    Price price = Price.newBuilder().setAmount(ByteBuffer.wrap(new byte[] { 1, 2 })).setCurrency("EUR").build();
    PaymentMethod paid = PaymentMethod.newBuilder().setValue(Voucher.newBuilder().setArg1(VoucherArg1.newBuilder().setCode("SPRING").setValue(price).build()).build()).build();
    SpecificData model = new SpecificData(ShopProbe.class.getClassLoader());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new SpecificDatumWriter<PaymentMethod>(PaymentMethod.getClassSchema(), model).write(paid, encoder);
    encoder.flush();
    PaymentMethod back = new SpecificDatumReader<PaymentMethod>(PaymentMethod.getClassSchema(), PaymentMethod.getClassSchema(), model).read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
    if (!back.equals(paid)) throw new IllegalStateException("the round trip changed " + paid + " into " + back);
    if (!(back.getValue() instanceof Voucher)) throw new IllegalStateException("decoded as " + back.getValue().getClass());
    return Base64.getEncoder().encodeToString(out.toByteArray());
  }
}
`;

/** A seeded random value of `name`'s schema, encoded by avsc. */
function randomValue(registry: Record<string, avsc.Type>, name: string, seed: number): Uint8Array {
  const type = registry[name];
  assert.ok(type, `${name} is in the registry`);
  // avsc's random() draws from Math.random: a fixed sequence keeps the data the same each run.
  const random = Math.random;
  let state = seed;
  Math.random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  try {
    return new Uint8Array(type.toBuffer(type.random()));
  } finally {
    Math.random = random;
  }
}

/**
 * The shop checks of three tests below, run in one JVM on first use: each call of
 * checkWithApacheAvroJava starts a JVM and warms javac, most of a small check's time.
 */
let shop: { registry: Record<string, avsc.Type>; classes: string[]; values: { className: string; data: Uint8Array }[]; index: { schemas: string[] }; inIndexOrder: Artifact[]; byName: Artifact[]; version: string; units: Map<string, JavaUnitVerdict> } | undefined;
function shopChecks(): NonNullable<typeof shop> {
  if (shop) return shop;
  const shared = sharedSchemas(generated('shop', { ...JAVA, dependencies: 'shared' }));
  const registry: Record<string, avsc.Type> = {};
  for (const a of shared) avsc.Type.forSchema(JSON.parse(a.content), { registry });
  const classes = ['shop.billing.Invoice', 'shop.orders.Order', 'shop.billing.PaymentMethod'];
  const values = classes.map((className, i) => ({ className, data: randomValue(registry, className, 7 + i) }));
  const selfContained = generated('shop', JAVA);
  const artifacts = generated('shop', { dependencies: 'shared' });
  const index = JSON.parse(artifacts.find((a) => a.path === LOAD_ORDER_PATH)?.content ?? 'null') as { schemas: string[] };
  const inIndexOrder = sharedSchemas(artifacts);
  const byName = [...inIndexOrder].sort((a, b) => (a.path < b.path ? -1 : 1));
  const verdict = checkWithApacheAvroJava([
    { name: 'shop json', parts: [{ artifacts: generated('shop', {}), parser: 'per-file' }] },
    { name: 'shop idl', parts: [{ artifacts: generated('shop', { representation: 'idl' }), parser: 'per-file' }], parseOnly: true },
    { name: 'shared', parts: [{ artifacts: shared, parser: 'shared' }], roundTrips: values, javaSources: [{ name: 'ShopProbe.java', text: SHOP_PROBE }], probes: ['ShopProbe'] },
    { name: 'self-contained', parts: [{ artifacts: selfContained, parser: 'per-file' }], roundTrips: values.slice(0, 2) },
    { name: 'index order', parts: [{ artifacts: inIndexOrder, parser: 'shared' }], parseOnly: true },
    { name: 'name order', parts: [{ artifacts: byName, parser: 'shared' }], parseOnly: true },
  ]);
  shop = { registry, classes, values, index, inIndexOrder, byName, version: verdict.version, units: new Map(verdict.units.map((u) => [u.name, u])) };
  return shop;
}
const shopUnit = (name: string): JavaUnitVerdict => {
  const unit = shopChecks().units.get(name);
  assert.ok(unit, `the checker answered for ${name}`);
  return unit as JavaUnitVerdict;
};

const java = suite('avro :: Apache Avro (Java 1.8.2): SpecificCompiler, javac, the IDL parser and the generated classes');

java('should fail javac on the reference mapping (a class and a package both named PaymentMethod) and the 1.8 IDL parser on @morphir.fqname', () => {
  assert.is(shopChecks().version, '1.8.2');
  const [json, idl] = [shopUnit('shop json'), shopUnit('shop idl')];
  assert.ok(json.failures.some((f) => f.stage === 'javac' && f.file.endsWith('shop/billing/PaymentMethod.java')), summary(json));
  assert.ok(json.failures.every((f) => f.stage === 'javac'), summary(json));
  assert.ok(idl.failures.length > 0 && idl.failures.every((f) => f.stage === 'parse' && /ParseException/.test(f.error)), summary(idl));
});

// javac over every layout of every model is most of this file's time: `npm test` compiles the
// default layout and two others (MEP_TEST_SEED picks them), `npm run test:long` all eight.
const javacLayouts = [LAYOUTS[0]!, ...seededSample(LAYOUTS.slice(1), 2, 'avro-java')];

java(`should compile ${javacLayouts.length === LAYOUTS.length ? 'every layout and representation' : `${javacLayouts.length} of the ${LAYOUTS.length} layouts and representations`} of every Elm model with constructor_namespace=lowercase-type and idl_property_names=hyphenated`, () => {
  // Models of different Morphir packages share a javac call; the acme/customer variants each need their own.
  const groups: string[][] = [];
  for (const model of elmModels) {
    const pkg = JSON.parse(readFileSync(join(fixtures, model, 'morphir.json'), 'utf8')).name as string;
    const group = groups.find((g) => g.every((other) => JSON.parse(readFileSync(join(fixtures, other, 'morphir.json'), 'utf8')).name !== pkg));
    if (group) group.push(model);
    else groups.push([model]);
  }
  const units: JavaUnit[] = [];
  let classesExpected = 0;
  for (const group of groups) {
    for (const { options, parser } of javacLayouts) {
      const parts: JavaPart[] = [];
      for (const model of group) {
        const result = generateAvro(irOf(model), { unsupported: 'warn-and-skip', ...JAVA, ...options });
        if (!result.success) {
          // Only where the reference mapping fails too (IDL cannot write the showcase's recursive
          // Tree: AVRO005), and for the same reason.
          const codes = (r: typeof result): string[] => r.diagnostics.map((d) => String(d.code));
          assert.equal(codes(result), codes(generateAvro(irOf(model), { unsupported: 'warn-and-skip', ...options })), `${model} ${JSON.stringify(options)}`);
          assert.equal(codes(result), ['AVRO005']);
          continue;
        }
        classesExpected += result.artifacts.length;
        parts.push({ artifacts: parser === 'shared' ? sharedSchemas(result.artifacts) : result.artifacts, parser });
      }
      units.push({ name: `${group.join('+')} ${JSON.stringify(options)}`, parts });
    }
  }
  assert.ok(groups.length < elmModels.length, `${groups.length} javac groups for ${elmModels.length} models`);
  const verdict = checkWithApacheAvroJava(units);
  for (const unit of verdict.units) assert.equal(unit.failures, [], summary(unit));
  assert.ok(classesExpected > 100 * (javacLayouts.length / LAYOUTS.length), `${classesExpected} classes`);
  const shop = verdict.units.find((u) => u.name.includes('shop') && u.name.endsWith(' {}')) as JavaUnitVerdict;
  assert.ok(shop.javaFiles >= 20, `${shop.javaFiles} classes for ${shop.name}`);
});

java('should round-trip records through the generated classes, in the shared and the self-contained layout, and through a typed program', () => {
  const { registry, classes, values } = shopChecks();
  const units = [shopUnit('shared'), shopUnit('self-contained')];
  for (const unit of units) {
    assert.equal(unit.failures, [], summary(unit));
    for (const [i, trip] of unit.roundTrips.entries()) {
      // Decoded into the generated class itself (not a generic record), and encoded back to the
      // same value (maps come back in another order, so the bytes may differ).
      assert.is(trip.decodedClass, classes[i]);
      assert.ok(trip.specific);
      const type = registry[classes[i]];
      assert.equal(type.fromBuffer(Buffer.from(trip.data)), type.fromBuffer(Buffer.from(values[i].data)), `${unit.name}: ${trip.className}`);
    }
    assert.is(unit.roundTrips.length, unit.name === 'shared' ? 3 : 2);
  }
  // What the typed program wrote, read by avsc: a voucher payment with its code and price.
  const written = registry['shop.billing.PaymentMethod'].fromBuffer(Buffer.from((units[0] as JavaUnitVerdict).probes[0] as string, 'base64'));
  const voucher = written.value['shop.billing.paymentmethod.Voucher'];
  assert.is(voucher.arg1.code, 'SPRING');
  assert.equal([...voucher.arg1.value.amount], [1, 2]);
  assert.is(voucher.arg1.value.currency, 'EUR');
});

java('should parse the shared layout in the order of its index with one Schema.Parser, and fail in name order', () => {
  const { index, inIndexOrder, byName } = shopChecks();
  assert.equal(inIndexOrder.map((a) => a.path), index.schemas as string[]);
  assert.not.equal(byName.map((a) => a.path), index.schemas);
  assert.equal(shopUnit('index order').failures, []);
  // shop/billing.avsc uses shop.catalog.Price before shop/catalog.avsc defines it.
  const named = shopUnit('name order');
  assert.ok(named.failures.some((f) => f.stage === 'parse' && f.file === 'shop/billing.avsc'), summary(named));
});

java.run();
