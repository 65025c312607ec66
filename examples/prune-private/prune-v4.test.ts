import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAvro } from '../avro/src/index.ts';
import { convertV3ToV4 } from '../avro/src/v3-to-v4.ts';
import { captureIo } from '../../host/src/cli/io.ts';
import { main } from '../../host/src/cli/main.ts';
import { REPO_ROOT, builtExample } from '../testing/built.ts';
import { prunePrivateV4 } from './src/prune-v4.ts';

const reference = (file: string) => JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/ir/reference', file), 'utf8'));
const ref = (fqname: string) => ({ Reference: { fqname } });
const entry = (access: 'Public' | 'Private', value: unknown) => ({ access, value });

// A v4 model: a public value whose body calls a private helper, a public type that uses a private
// one, a private type reached only through a constructor in a body, and dead private items.
const model = {
  formatVersion: '4.0.0',
  distribution: {
    Library: {
      packageName: 'acme/app',
      dependencies: {},
      def: {
        modules: {
          api: entry('Public', {
            doc: 'The API.',
            types: {
              order: entry('Public', { doc: 'An order.', TypeAliasDefinition: { typeParams: [], typeExp: { Record: { fields: { id: ref('acme/app:internal#order-id') } } } } }),
              unused: entry('Private', { TypeAliasDefinition: { typeParams: [], typeExp: ref('morphir/sdk:string#string') } }),
            },
            values: {
              place: entry('Public', { ExpressionBody: { inputTypes: { order: ref('acme/app:api#order') }, outputType: ref('morphir/sdk:basics#bool'), body: { Apply: { function: ref('acme/app:internal#check'), argument: { Constructor: { fqname: 'acme/app:internal#flagged' } } } } } }),
              dead: entry('Private', { ExpressionBody: { inputTypes: {}, outputType: ref('morphir/sdk:basics#int'), body: { Literal: { literal: { IntegerLiteral: 1 } } } } }),
            },
          }),
          internal: entry('Private', {
            types: {
              'order-id': entry('Private', { TypeAliasDefinition: { typeParams: [], typeExp: ref('morphir/sdk:string#string') } }),
              flag: entry('Private', { CustomTypeDefinition: { typeParams: [], accessControlledConstructors: entry('Private', { flagged: {}, clear: {} }) } }),
              junk: entry('Private', { TypeAliasDefinition: { typeParams: [], typeExp: ref('morphir/sdk:basics#int') } }),
            },
            values: { check: entry('Private', { ExpressionBody: { inputTypes: {}, outputType: ref('morphir/sdk:basics#bool'), body: { Literal: { literal: { BoolLiteral: true } } } } }) },
          }),
          scratch: entry('Private', { types: { tmp: entry('Private', { TypeAliasDefinition: { typeParams: [], typeExp: ref('morphir/sdk:basics#int') } }) }, values: {} }),
        },
      },
    },
  },
};

const Prune = suite('prune-private :: IR v4');

Prune('should keep what the public surface reaches (signatures, bodies, constructors) and remove the rest', () => {
  const { ir, report } = prunePrivateV4(model as never);
  assert.equal(report, { removedTypes: ['api#unused', 'internal#junk', 'scratch#tmp'], removedValues: ['api#dead'], removedModules: ['scratch'] });
  const modules = (ir as typeof model).distribution.Library.def.modules as Record<string, { value: { types: object; values: object } }>;
  assert.equal(Object.keys(modules), ['api', 'internal']);
  assert.equal(Object.keys(modules.internal.value.types), ['order-id', 'flag']);
  assert.equal(Object.keys(modules.internal.value.values), ['check']);
  assert.is((ir as { formatVersion: string }).formatVersion, '4.0.0');
});

Prune('should strip module, type and value docs only on request', () => {
  assert.match(JSON.stringify(prunePrivateV4(model as never).ir), /"doc"/);
  assert.not.match(JSON.stringify(prunePrivateV4(model as never, true).ir), /"doc"/);
});

Prune('should keep the Avro projection of a converted Elm model byte-identical, in both v4 spellings', () => {
  const v3 = JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/ir/showcase/morphir-ir.json'), 'utf8'));
  for (const style of ['wrapped', 'compact'] as const) {
    const v4 = convertV3ToV4(v3, style);
    const { ir, report } = prunePrivateV4(v4 as never);
    assert.ok(report.removedTypes.includes('orders#secret'), JSON.stringify(report));
    assert.equal(generateAvro(ir, { unsupported: 'warn-and-skip' }), generateAvro(v4, { unsupported: 'warn-and-skip' }), style);
  }
});

Prune('should read the reference documents (object and array distributions) and refuse what is not a Library', () => {
  for (const file of ['v4-rust-integration-v4-library-distribution.json', 'v4-morphir-bdd-v4-library-distribution.json']) {
    assert.equal(prunePrivateV4(reference(file)).report.removedTypes, ['domain#incomplete-user'], file);
  }
  assert.throws(() => prunePrivateV4({ formatVersion: 4, distribution: { Application: {} } }), /Library/);
  assert.throws(() => prunePrivateV4({ formatVersion: 4, distribution: { Library: { packageName: 'a', def: { modules: { m: { types: {} } } } } } }), /access/);
});
Prune.run();

const Cli = suite('prune-private :: IR v4 through mep transform (wasm)');

Cli('should transform a v4 document and write v4', async () => {
  const wasm = await builtExample('prune-private', 'wasm');
  const dir = await mkdtemp(join(tmpdir(), 'mep-prune-v4-'));
  try {
    const input = join(dir, 'in.json');
    await writeFile(input, JSON.stringify(model));
    const out = join(dir, 'pruned.json');
    const io = captureIo(REPO_ROOT);
    assert.is(await main(['transform', '--extension', wasm, '--input', input, '--output', out, '--json'], io), 0, io.stderr.join('\n'));
    assert.is(JSON.parse(io.stdout.join('\n')).irVersion, '4');
    assert.equal(JSON.parse(await readFile(out, 'utf8')), prunePrivateV4(model as never).ir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
Cli.run();
