import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { readIr } from './ir-reader.ts';
import { assertParsesWithAvsc, library, t } from './test-support.ts';
import { convertV3ToV4 } from './v3-to-v4.ts';
import { projectionToV3 } from './projection-to-v3.ts';
import { createRandom } from './random-ir.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'ir');
const load = (path: string): unknown => JSON.parse(readFileSync(join(fixtures, path), 'utf8'));
// Real v4 documents from the Morphir repositories, copied from shared/reference/morphir-ir (PROVENANCE.md).
const v4Files = readdirSync(join(fixtures, 'reference')).filter((f) => f.startsWith('v4-') && f.endsWith('.json'));
// The Elm models compiled by morphir-elm 2.82.0 (fixtures/ir/README.md).
const elmModels = readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'reference').map((d) => d.name);

const OPTION_SETS: Record<string, unknown>[] = [
  {},
  { unsupported: 'warn-and-skip' },
  { projection: 'protocol-public', unsupported: 'warn-and-skip' },
  { representation: 'idl', unsupported: 'warn-and-skip' },
  { aliases: 'wrapper-record', dependencies: 'linked', unsupported: 'warn-and-skip' },
];

const reference = suite('IR v4 :: every reference document');

reference('should have copied the v4 reference documents', () => {
  assert.ok(v4Files.length >= 6, v4Files.join(', '));
});

for (const file of v4Files) {
  reference(`should read ${file} and generate parseable Avro from it`, async () => {
    const ir = load(`reference/${file}`);
    const pkg = readIr(ir);
    assert.ok(pkg.packageName.length > 0);
    for (const options of OPTION_SETS.slice(1)) {
      const result = generateAvro(ir, options);
      assert.ok(result.success, `${file} ${JSON.stringify(options)}: ${JSON.stringify(result.diagnostics)}`);
      await assertParsesWithAvsc(result.artifacts);
    }
  });
}

for (const file of v4Files) {
  reference(`should round-trip ${file} through v3 and back to v4 with the same model and Avro`, () => {
    const v4 = load(`reference/${file}`);
    const v3 = projectionToV3(readIr(v4));
    const again = convertV3ToV4(v3, 'wrapped');
    assert.equal(readIr(v3), readIr(v4));
    assert.equal(readIr(again), readIr(v4));
    for (const options of OPTION_SETS) {
      const expected = generateAvro(v4, options);
      assert.equal(generateAvro(v3, options), expected, `${file} as v3 ${JSON.stringify(options)}`);
      assert.equal(generateAvro(again, options), expected, `${file} back as v4 ${JSON.stringify(options)}`);
    }
  });
}

reference('should read the books-and-records example in full (initialisms, compact types, docs, dependencies)', () => {
  const pkg = readIr(load('reference/v4-morphir-website-books-and-records-example.json'));
  assert.is(pkg.packageName, 'morphir/reference/model');
  assert.equal(pkg.dependencies.map((d) => d.packageName), ['morphir/SDK']);
  const module = pkg.modules[0];
  assert.equal(module.path, ['books-and-records']);
  assert.match(module.doc ?? '', 'Books and Records module');
  assert.equal(module.types.map((d) => `${d.kind} ${d.name}`), ['alias book', 'alias deal', 'custom deal-cmd', 'custom deal-event', 'alias price', 'alias product-ID', 'alias quantity']);
  const dealCmd = module.types.find((d) => d.name === 'deal-cmd');
  assert.equal(dealCmd?.kind === 'custom' && dealCmd.constructors.map((c) => [c.name, c.args.map((a) => a.name)]), [
    ['close-deal', ['product']],
    ['open-deal', ['product', 'price', 'quantity']],
  ]);
  assert.equal(module.values.map((v) => [v.name, v.inputs.map((i) => i.name), v.output.kind]), [
    ['close-deal', ['product', 'book'], 'tuple'],
    ['open-deal', ['product', 'price', 'quantity', 'book'], 'tuple'],
  ]);
  const book = generateAvro(load('reference/v4-morphir-website-books-and-records-example.json'), {});
  const bookSchema = JSON.parse(book.artifacts.find((a) => a.path.endsWith('/Book.avsc'))?.content ?? '{}');
  assert.equal([bookSchema.type, bookSchema.values?.name], ['map', 'Deal']);
});

reference('should skip private items and read the Rust reference signatures ({"type": T} inputs, NativeBody)', () => {
  for (const file of ['v4-morphir-bdd-v4-library-distribution.json', 'v4-rust-integration-v4-library-distribution.json']) {
    const pkg = readIr(load(`reference/${file}`));
    assert.equal(pkg.modules[0].types.map((d) => d.source), ['example/v4-test:domain#user-id'], file);
    assert.equal(
      pkg.modules[0].values.map((v) => [v.name, v.inputs.map((i) => `${i.name}:${i.tpe.kind === 'reference' ? i.tpe.source : i.tpe.kind}`)]),
      [['get-user-name', ['user:example/v4-test:domain#user-id']], ['native-add', ['a:morphir/SDK:basics#int', 'b:morphir/SDK:basics#int']]],
      file,
    );
  }
});

reference.run();

const roundTrip = suite('IR v4 :: the same model as v3 and as v4 gives the same Avro');

for (const model of elmModels) {
  for (const style of ['wrapped', 'compact'] as const) {
    roundTrip(`should read ${model} converted to v4 (${style}) into the same model and artifacts`, () => {
      const v3 = load(`${model}/morphir-ir.json`);
      const v4 = convertV3ToV4(v3, style);
      assert.equal(readIr(v4), readIr(v3));
      for (const options of OPTION_SETS) assert.equal(generateAvro(v4, options), generateAvro(v3, options), `${model} ${JSON.stringify(options)}`);
    });
  }
}

roundTrip('should survive JSON serialization of the converted document (what a file on disk holds)', () => {
  const v3 = load('showcase/morphir-ir.json');
  const v4 = JSON.parse(JSON.stringify(convertV3ToV4(v3, 'compact')));
  assert.equal(generateAvro(v4, { unsupported: 'warn-and-skip' }), generateAvro(v3, { unsupported: 'warn-and-skip' }));
});

roundTrip.run();

const hostile = suite('IR v4 :: bad v4 input is a domain failure naming the path');

const v4Of = (distribution: unknown): unknown => ({ formatVersion: '4.0.0', distribution });
const lib = (modules: unknown): unknown => v4Of({ Library: { packageName: 'acme/app', dependencies: {}, def: { modules } } });

for (const [name, ir, where] of [
  ['an Application distribution', v4Of({ Application: { packageName: 'acme/app' } }), 'distribution'],
  ['a bare array distribution that is not a Library', v4Of(['Specs', 'acme/app', {}, {}]), 'distribution[0]'],
  ['a definition that is not an object', v4Of({ Library: { packageName: 'acme/app', dependencies: {}, def: 7 } }), 'distribution.Library.def'],
  ['a module without access', lib({ m: { types: {} } }), 'distribution.Library.def.modules.m'],
  ['an unknown access', lib({ m: { access: 'Internal', value: {} } }), 'distribution.Library.def.modules.m.access'],
  ['an untagged type definition', lib({ m: { Public: { types: { x: { Public: { typeExp: 'a' } } } } } }), 'distribution.Library.def.modules.m.types.x'],
  ['an unknown type tag', lib({ m: { Public: { types: { x: { Public: { TypeAliasDefinition: { typeExp: { Lambda: {} } } } } } } } }), 'typeExp'],
  ['a bad FQName', lib({ m: { Public: { types: { x: { Public: { TypeAliasDefinition: { typeExp: ['nope', 'a'] } } } } } } }), 'typeExp[0]'],
  ['a number as a name', lib({ m: { Public: { types: { x: { Public: { TypeAliasDefinition: { typeParams: [7], typeExp: 'a' } } } } } } }), 'typeParams[0]'],
] as const) {
  hostile(`should report ${name} as invalid_ir at ${where}`, () => {
    const result = generateAvro(ir, {});
    assert.equal([result.success, result.artifacts.length], [false, 0]);
    assert.equal(result.diagnostics.map((d) => d.code), ['invalid_ir']);
    assert.match(result.diagnostics[0].message, where);
  });
}

hostile('should refuse other 4.x revisions and keep reading v3', () => {
  assert.is(generateAvro({ formatVersion: '4.1.0', distribution: {} }, {}).diagnostics[0].code, 'unsupported_format_version_revision');
  assert.ok(generateAvro(library('a', [{ path: 'm', types: [{ name: 'x', alias: t.string() }] }]), {}).success);
});

hostile('should treat morphir/sdk, morphir/s-d-k and morphir/SDK as the one SDK package', () => {
  for (const sdk of ['morphir/sdk', 'morphir/s-d-k', 'morphir/SDK']) {
    const pkg = readIr(lib({ m: { Public: { types: { x: { Public: { TypeAliasDefinition: { typeExp: `${sdk}:string#string` } } } } } } }));
    const value = pkg.modules[0].types[0];
    assert.equal(value.kind === 'alias' && value.value, { kind: 'reference', source: 'morphir/SDK:string#string', args: [] }, sdk);
  }
});

hostile('should never throw on mutated v4 documents: every result is artifacts or diagnostics', () => {
  const base = JSON.stringify(convertV3ToV4(load('showcase/morphir-ir.json'), 'compact'));
  const random = createRandom(11);
  const junk = [null, 7, 'x', 'a:b#c', [], {}, ['Tuple'], { Record: 5 }, { Public: null }, { access: 'Public' }, [[]], { Reference: {} }];
  let failures = 0;
  for (let i = 0; i < 300; i++) {
    const doc = JSON.parse(base) as unknown;
    // Replace one random node (found by a random walk) with junk.
    let parent = doc as Record<string, unknown>;
    let key = 'distribution';
    for (let depth = 0; depth < 12; depth++) {
      const child = parent[key];
      if (child === null || typeof child !== 'object') break;
      const keys = Object.keys(child);
      if (keys.length === 0) break;
      parent = child as Record<string, unknown>;
      key = keys[Math.floor(random() * keys.length)];
      if (random() < 0.15) break;
    }
    parent[key] = junk[Math.floor(random() * junk.length)];
    const result = generateAvro(doc, { unsupported: 'warn-and-skip' });
    assert.ok(result.success || result.diagnostics.length > 0);
    if (!result.success) failures++;
  }
  assert.ok(failures > 0, 'no mutation was rejected');
});

hostile.run();
