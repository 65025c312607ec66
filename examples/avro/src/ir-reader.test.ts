import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { readIr } from './ir-reader.ts';
import { assertParsesWithAvsc, library, t } from './test-support.ts';

const here = dirname(fileURLToPath(import.meta.url));
// Real v3 IR from the Morphir repositories, copied from shared/reference/morphir-ir (see PROVENANCE.md).
const referenceIr = join(here, '..', '..', '..', 'fixtures', 'ir', 'reference');

const bad = suite('IR reading :: bad input is a domain failure');

for (const [name, ir, code] of [
  ['no formatVersion', { distribution: [] }, 'missing_format_version'],
  ['not an object', 'hello', 'missing_format_version'],
  ['null', null, 'missing_format_version'],
  ['formatVersion 2', { formatVersion: 2, distribution: [] }, 'unsupported_format_version_major'],
  ['formatVersion 4 with a v3 distribution', { formatVersion: 4, distribution: [] }, 'invalid_ir'],
  ['formatVersion "5.0.0"', { formatVersion: '5.0.0' }, 'unsupported_format_version_major'],
  ['formatVersion "3.1.0"', { formatVersion: '3.1.0' }, 'unsupported_format_version_revision'],
  ['formatVersion "3.x"', { formatVersion: '3.x' }, 'invalid_format_version_syntax'],
  ['formatVersion true', { formatVersion: true }, 'invalid_format_version_type'],
  ['missing distribution', { formatVersion: 3 }, 'invalid_ir'],
  ['not a Library', { formatVersion: 3, distribution: ['Application', [], [], {}] }, 'invalid_ir'],
  ['broken type tag', library('a', [{ path: 'm', types: [{ name: 'x', alias: ['Nope', {}] }] }]), 'invalid_ir'],
  ['broken module list', { formatVersion: 3, distribution: ['Library', [['a']], [], { modules: 7 }] }, 'invalid_ir'],
] as const) {
  bad(`should report ${name} as ${code}`, () => {
    const result = generateAvro(ir, {});
    assert.equal([result.success, result.artifacts.length, result.diagnostics.length], [false, 0, 1]);
    assert.is(result.diagnostics[0].code, code);
    assert.is(result.diagnostics[0].severity, 'error');
  });
}

bad('should accept formatVersion "3.0.0"', () => {
  assert.ok(generateAvro({ ...(library('a', []) as object), formatVersion: '3.0.0' }, {}).success);
});

bad('should name the JSON path of a failure deep in the document, and read the next document normally', () => {
  const fields: [string, unknown][] = [['a', t.int()], ['b', t.ref('morphir/SDK:list#list', t.string())]];
  const ir = library('acme/app', [{ path: 'm', types: [{ name: 'r', alias: t.record(fields, 'object') }] }]) as { distribution: unknown[] };
  const broken = JSON.parse(JSON.stringify(ir));
  // The element type of `b`'s List: ["Reference", {}, fqName, [elementType]].
  broken.distribution[3].modules[0][1].value.types[0][1].value.value[2][2][1].tpe[3][0][2][1] = [['string'], 7];
  const failure = (): string => {
    try {
      readIr(broken);
    } catch (error) {
      return (error as Error).message;
    }
    return 'no failure';
  };
  const expected = 'invalid Morphir IR at distribution[3].modules[0][1].value.types[0][1].value[2][2][1].tpe[3][0][2][1][1]: expected a name (array of words)';
  assert.is(failure(), expected);
  // The failing read leaves nothing behind: a good document reads, and the failure repeats.
  assert.equal(readIr(ir).modules[0].types.length, 1);
  assert.is(failure(), expected);
});

bad.run();

const reading = suite('IR reading :: normalization');

reading('should read both record field encodings to the same artifacts', () => {
  const fields: [string, unknown][] = [['b', t.int()], ['a', t.string()]];
  const objects = generateAvro(library('a', [{ path: 'm', types: [{ name: 'r', alias: t.record(fields, 'object') }] }]), {});
  const pairs = generateAvro(library('a', [{ path: 'm', types: [{ name: 'r', alias: t.record(fields, 'pair') }] }]), {});
  assert.ok(objects.success);
  assert.equal(objects, pairs);
});

reading('should project only public modules, types and values; private constructors make a type opaque', () => {
  const pkg = readIr(
    library('acme/app', [
      { path: 'hidden', access: 'Private', types: [{ name: 'x', alias: t.string() }] },
      {
        path: 'shown',
        types: [
          { name: 'private-alias', access: 'Private', alias: t.string() },
          { name: 'closed', custom: [['closed', [['v', t.int()]]]], constructorsAccess: 'Private' },
        ],
        values: [{ name: 'helper', access: 'Private', output: t.string() }],
      },
    ]),
  );
  assert.equal(pkg.modules.map((m) => m.path), [['shown']]);
  assert.equal(pkg.modules[0].types.map((d) => [d.name, d.kind]), [['closed', 'opaque']]);
  assert.equal(pkg.modules[0].values, []);
});

reading('should canonicalize names (initialisms) and trim morphir-elm docs', () => {
  const pkg = readIr(library('acme/app', [{ path: 'm', types: [{ name: 'API-response', doc: ' Raw doc.\n', alias: t.string() }] }]));
  assert.is(pkg.modules[0].types[0].source, 'acme/app:m#API-response');
  assert.is(pkg.modules[0].types[0].doc, 'Raw doc.');
});

reading.run();

const real = suite('IR reading :: real IR files');

for (const file of readdirSync(referenceIr).filter((f) => f.startsWith('v3-') && f.endsWith('.json'))) {
  real(`should generate from ${file} without crashing`, async () => {
    const ir = JSON.parse(readFileSync(join(referenceIr, file), 'utf8'));
    for (const options of [{ unsupported: 'warn-and-skip' }, { unsupported: 'warn-and-skip', projection: 'protocol-public', representation: 'idl' }]) {
      const result = generateAvro(ir, options);
      assert.type(result.success, 'boolean');
      if (result.success) await assertParsesWithAvsc(result.artifacts);
      else assert.ok(result.diagnostics.length > 0);
    }
  });
}

real.run();

const memo = suite('IR reading :: remembered names');

memo('should keep word lists that join to the same text apart (["a b"] vs ["a", "b"])', () => {
  const ir = library('acme/app', [{ path: 'm', types: [{ name: 'x', alias: t.string() }] }]) as { distribution: unknown[] };
  const read = (words: string[]) => {
    const copy = JSON.parse(JSON.stringify(ir));
    copy.distribution[3].modules[0][1].value.types[0][0] = words;
    return readIr(copy).modules[0].types[0].name;
  };
  // Twice each, in both orders, so a remembered answer is what is compared.
  for (let i = 0; i < 2; i++) {
    assert.is(read(['a b']), 'a b');
    assert.is(read(['a', 'b']), 'AB');
    assert.is(read(['a', 'b c']), 'a-b c');
    assert.is(read(['a b', 'c']), 'a b-c');
  }
});

memo('should read FQNames that share their first words apart, in every order (a path node compares its first word first)', () => {
  // Package and module paths diverging after a shared word, at every level: a node that answered
  // its first child for any word would give every one the first FQName read.
  const sources = [
    'acme/app:main#ex', 'acme/app:main#why', 'acme/app:next#ex', 'acme/app:main/next#ex', 'acme/apx:main#ex',
    'acme:main#ex', 'acme/app/zed:main#ex', 'acme/app:main-next#ex', 'acme/app:main#ex-why',
  ];
  const read = (order: string[]) => {
    const fields = order.map((source, i): [string, unknown] => [`f${i}`, t.ref(source)]);
    const ir = library('acme/app', [{ path: 'main', types: [{ name: 'holder', alias: t.record(fields as never) }] }]);
    const holder = readIr(ir).modules[0].types[0] as unknown as { value: { fields: { name: string; tpe: { source: string } }[] } };
    return Object.fromEntries(holder.value.fields.map((f) => [f.name, f.tpe.source]));
  };
  for (const order of [sources, [...sources].reverse(), sources]) {
    const got = read(order);
    order.forEach((source, i) => assert.is(got[`f${i}`], source));
  }
});

memo.run();
