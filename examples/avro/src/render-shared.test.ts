import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { dependency, library, loadSharedWithAvsc, t } from './test-support.ts';

const here = dirname(fileURLToPath(import.meta.url));
const showcase = JSON.parse(readFileSync(join(here, '..', '..', '..', 'fixtures', 'ir', 'showcase', 'morphir-ir.json'), 'utf8'));

/** A chain a -> b -> c across two modules, and a dependency package type used twice. */
const chain = library(
  'acme/app',
  [
    {
      path: 'base',
      types: [
        { name: 'c', alias: t.record([['zip', t.ref('shared/base:ids#zip')]]) },
        { name: 'b', alias: t.record([['c', t.ref('acme/app:base#c')], ['also', t.ref('shared/base:ids#zip')]]) },
      ],
    },
    { path: 'top', types: [{ name: 'a', alias: t.record([['b', t.ref('acme/app:base#b')], ['c', t.ref('morphir/SDK:list#list', t.ref('acme/app:base#c'))]]) }] },
  ],
  [dependency('shared/base', [{ path: 'ids', types: [{ name: 'zip', custom: [['zip', [['code', t.string()]]]] }] }])],
);

const Shared = suite('render :: dependencies=shared');

Shared('should define every named type once, dependencies first, and reference it by full name', () => {
  const result = generateAvro(chain, { dependencies: 'shared' });
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  // Dependency order: a type's artifact comes after every artifact it references.
  assert.equal(result.artifacts.map((a) => a.path), [
    'shared/base/ids/Zip/Zip.avsc',
    'shared/base/ids/Zip.avsc',
    'acme/app/base/C.avsc',
    'acme/app/base/B.avsc',
    'acme/app/top/A.avsc',
  ]);
  const names = loadSharedWithAvsc(result.artifacts);
  // Hostile: out of order, a reference to a type not yet defined is refused.
  let refused = '';
  try {
    loadSharedWithAvsc([...result.artifacts].reverse());
  } catch (error) {
    refused = (error as Error).message;
  }
  assert.match(refused, /undefined type name/);
  assert.equal(names.sort(), ['acme.app.base.B', 'acme.app.base.C', 'acme.app.top.A', 'shared.base.ids.Zip', 'shared.base.ids.Zip.Zip']);
  const a = JSON.parse(result.artifacts.find((x) => x.path === 'acme/app/top/A.avsc')?.content ?? '{}');
  assert.equal(a.fields.map((f: { type: unknown }) => f.type), ['acme.app.base.B', { items: 'acme.app.base.C', type: 'array' }]);
  // Each definition appears in exactly one artifact.
  const text = result.artifacts.map((x) => x.content).join('');
  assert.is(text.split('"name": "C"').length - 1, 1);
});

Shared('should keep the showcase model loadable in artifact order (cycles, generics, protocols)', () => {
  for (const projection of ['schemas', 'protocol-public']) {
    const result = generateAvro(showcase, { dependencies: 'shared', unsupported: 'warn-and-skip', projection });
    assert.ok(result.success, JSON.stringify(result.diagnostics));
    assert.ok(loadSharedWithAvsc(result.artifacts).length > 5, projection);
  }
});

Shared('should be smaller than self-contained output and deterministic', () => {
  const size = (options: Record<string, unknown>) => generateAvro(showcase, { unsupported: 'warn-and-skip', ...options }).artifacts.reduce((n, a) => n + a.content.length, 0);
  assert.ok(size({ dependencies: 'shared' }) < size({}));
  assert.equal(generateAvro(showcase, { dependencies: 'shared', unsupported: 'warn-and-skip' }), generateAvro(showcase, { dependencies: 'shared', unsupported: 'warn-and-skip' }));
});

Shared('should refuse shared with IDL (AVRO004) before reading the IR', () => {
  const result = generateAvro({ not: 'ir' }, { dependencies: 'shared', representation: 'idl' });
  assert.is(result.success, false);
  assert.equal(result.diagnostics.map((d) => d.code), ['AVRO004']);
});

Shared.run();
