import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { assertParsesWithAvsc, dependency, library, readIdlWithAvsc, t } from './test-support.ts';

const here = dirname(fileURLToPath(import.meta.url));
const showcase = JSON.parse(readFileSync(join(here, '..', '..', '..', 'fixtures', 'ir', 'showcase', 'morphir-ir.json'), 'utf8'));
const MONEY = { 'acme/showcase:common#money': { type: 'bytes', logical_type: 'decimal', precision: 18, scale: 2 } };
const ALL_OPTIONS: Record<string, unknown>[] = [];
for (const representation of ['json', 'idl']) {
  for (const projection of ['schemas', 'protocol-public', 'protocol-entry-points']) {
    for (const aliases of ['inline', 'wrapper-record']) {
      ALL_OPTIONS.push({ representation, projection, aliases, unsupported: 'warn-and-skip', type_mappings: MONEY });
    }
  }
}

const model = suite('render :: showcase model (Elm, cross-module, generics, recursion)');

model('should generate and parse with every JSON option combination', async () => {
  for (const options of ALL_OPTIONS.filter((o) => o.representation === 'json')) {
    const result = generateAvro(showcase, options);
    assert.ok(result.success, `${JSON.stringify(options)}: ${JSON.stringify(result.diagnostics)}`);
    assert.ok(result.artifacts.length > 0);
    await assertParsesWithAvsc(result.artifacts);
    // Only the two generic declarations are skipped; the opaque Money is mapped.
    assert.equal(result.diagnostics.map((d) => [d.code, d.location?.uri]), [
      ['AVRO002', 'morphir-fqname:acme/showcase:common#labelled'],
      ['AVRO002', 'morphir-fqname:acme/showcase:common#page'],
    ]);
  }
});

model('IDL should refuse the mutually recursive Tree declarations (AVRO005, as the reference)', () => {
  for (const options of ALL_OPTIONS.filter((o) => o.representation === 'idl')) {
    const result = generateAvro(showcase, options);
    assert.is(result.success, false);
    assert.equal(result.diagnostics.map((d) => [d.severity, d.code]), [['error', 'AVRO005']]);
    assert.match(result.diagnostics[0].message, /acme\.showcase\.orders\.Tree -> acme\.showcase\.orders\.Tree\.Node/);
  }
});

model('should never project the private module or private declarations', () => {
  const result = generateAvro(showcase, ALL_OPTIONS[2]);
  const text = result.artifacts.map((a) => a.content).join('\n');
  assert.not.match(text, /internal|Secret|secret/);
});

model.run();

const determinism = suite('render :: determinism');

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function reorder(ir: { distribution: [string, unknown, unknown, { modules: [unknown, { value: { types: unknown[]; values: unknown[] } }][] }] }, seed: number): unknown {
  const copy = JSON.parse(JSON.stringify(ir));
  const definition = copy.distribution[3];
  definition.modules = shuffled(definition.modules, seed);
  for (const [, module] of definition.modules) {
    module.value.types = shuffled(module.value.types, seed + 1);
    module.value.values = shuffled(module.value.values, seed + 2);
  }
  return copy;
}

determinism('should give byte-identical artifacts for the same input twice', () => {
  for (const options of ALL_OPTIONS) assert.equal(generateAvro(showcase, options), generateAvro(showcase, options));
});

determinism('should give identical artifacts when modules, types and values are shuffled', () => {
  for (const seed of [1, 7, 42]) {
    for (const options of ALL_OPTIONS) assert.equal(generateAvro(reorder(showcase, seed), options), generateAvro(showcase, options));
  }
});

determinism('should pretty-print with sorted keys, two-space indent and one trailing newline', () => {
  const result = generateAvro(showcase, ALL_OPTIONS[0]);
  for (const artifact of result.artifacts.filter((a) => a.path.endsWith('.avsc'))) {
    const sortKeys = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])])) : v;
    assert.is(artifact.content, `${JSON.stringify(sortKeys(JSON.parse(artifact.content)), null, 2)}\n`);
    assert.is(artifact.binary, false);
  }
});

determinism.run();

const linked = suite('render :: dependencies');

const withDependency = library(
  'acme/app',
  [
    {
      path: 'domain',
      types: [
        { name: 'customer', alias: t.record([['id', t.ref('shared/base:ids#customer-id')], ['address', t.ref('shared/base:ids#address')]]) },
        { name: 'order', alias: t.record([['customer', t.ref('acme/app:domain#customer')], ['ship-to', t.ref('shared/base:ids#address')]]) },
      ],
    },
  ],
  [
    dependency('shared/base', [
      {
        path: 'ids',
        types: [
          { name: 'customer-id', alias: t.string() },
          { name: 'address', alias: t.record([['street', t.string()], ['zip', t.ref('shared/base:ids#zip')]]) },
          { name: 'zip', custom: [['zip', [['code', t.string()]]]] },
        ],
      },
    ]),
  ],
);

linked('self-contained should inline the dependency closure in each root', async () => {
  const result = generateAvro(withDependency, {});
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  assert.equal(result.artifacts.map((a) => a.path), ['acme/app/domain/Customer.avsc', 'acme/app/domain/Order.avsc']);
  for (const artifact of result.artifacts) assert.match(artifact.content, /"name": "Address"/);
  await assertParsesWithAvsc(result.artifacts);
});

linked('linked should emit each dependency declaration once and reference it by full name', async () => {
  const result = generateAvro(withDependency, { dependencies: 'linked' });
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  const paths = result.artifacts.map((a) => a.path);
  assert.equal(paths, [
    'shared/base/ids/Zip/Zip.avsc',
    'shared/base/ids/Zip.avsc',
    'shared/base/ids/Address.avsc',
    'acme/app/domain/Customer.avsc',
    'acme/app/domain/Order.avsc',
  ]);
  const order = JSON.parse(result.artifacts[4].content);
  assert.is(order.fields[1].type, 'shared.base.ids.Address');
  // Each avsc file is standalone only together with its dependencies: check them as one registry.
  const avsc = (await import('avsc')).default;
  const shared: Record<string, unknown> = {};
  for (const artifact of result.artifacts.slice(0, 3)) avsc.Type.forSchema(JSON.parse(artifact.content), { registry: shared as never });
  for (const artifact of result.artifacts.slice(3)) avsc.Type.forSchema(JSON.parse(artifact.content), { registry: { ...shared } as never });
});

linked('linked IDL should import dependency protocols by relative path', async () => {
  const result = generateAvro(withDependency, { dependencies: 'linked', representation: 'idl' });
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  const order = result.artifacts.find((a) => a.path === 'acme/app/domain/OrderSchemas.avdl');
  assert.match(order?.content ?? '', /import idl "..\/..\/..\/shared\/base\/ids\/AddressSchemas.avdl";/);
  // avsc's assembler re-declares types reached through diamond imports, so check each file's
  // syntax on its own here (self-contained IDL is fully checked elsewhere).
  for (const artifact of result.artifacts) {
    await readIdlWithAvsc(artifact.path, new Map([[artifact.path, artifact.content.replace(/^  import idl .*\n/gm, '')]]));
  }
});

linked.run();
