import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { LOAD_ORDER_PATH } from './render-json.ts';
import { byLoadOrder, dependency, library, loadSharedWithAvsc, t } from './test-support.ts';

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
  // One file per module namespace, dependencies first; inside a file, definitions before uses.
  assert.equal(result.artifacts.map((a) => a.path), ['shared/base/ids.avsc', 'acme/app/base.avsc', 'acme/app/top.avsc', LOAD_ORDER_PATH]);
  // The index lists the .avsc files in the order they were returned, for readers of the files alone.
  assert.equal(JSON.parse(result.artifacts[3].content).schemas, ['shared/base/ids.avsc', 'acme/app/base.avsc', 'acme/app/top.avsc']);
  const base = JSON.parse(result.artifacts[1].content);
  assert.equal(base.map((d: { name: string }) => d.name), ['C', 'B']);
  const ids = JSON.parse(result.artifacts[0].content);
  // A constructor record (namespace shared.base.ids.Zip) stays in its type's module file.
  assert.equal(ids.map((d: { name: string; namespace: string }) => `${d.namespace}.${d.name}`), ['shared.base.ids.Zip.Zip', 'shared.base.ids.Zip']);
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
  const [a] = JSON.parse(result.artifacts[2].content);
  assert.equal(a.fields.map((f: { type: unknown }) => f.type), ['acme.app.base.B', { items: 'acme.app.base.C', type: 'array' }]);
  // Each definition appears in exactly one artifact.
  const text = result.artifacts.map((x) => x.content).join('');
  assert.is(text.split('"name": "C"').length - 1, 1);
});

Shared('should put namespaces that reference each other in a cycle into one file', () => {
  // No type refers to itself, but one -> two (A -> B) and two -> one (C -> D).
  const cyclic = library('acme/app', [
    { path: 'one', types: [{ name: 'a', alias: t.record([['b', t.ref('acme/app:two#b')]]) }, { name: 'd', alias: t.record([['x', t.string()]]) }] },
    { path: 'two', types: [{ name: 'b', alias: t.record([['x', t.int()]]) }, { name: 'c', alias: t.record([['d', t.ref('acme/app:one#d')]]) }] },
    { path: 'three', types: [{ name: 'e', alias: t.record([['c', t.ref('acme/app:two#c')]]) }] },
  ]);
  const result = generateAvro(cyclic, { dependencies: 'shared' });
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  assert.equal(result.artifacts.map((a) => a.path), ['acme/app/one.avsc', 'acme/app/three.avsc', LOAD_ORDER_PATH]);
  assert.equal(loadSharedWithAvsc(result.artifacts).sort(), ['acme.app.one.A', 'acme.app.one.D', 'acme.app.three.E', 'acme.app.two.B', 'acme.app.two.C']);
});

Shared('should keep the showcase model loadable in artifact order and in index order (cycles, generics, protocols)', () => {
  for (const projection of ['schemas', 'protocol-public']) {
    const result = generateAvro(showcase, { dependencies: 'shared', unsupported: 'warn-and-skip', projection });
    assert.ok(result.success, JSON.stringify(result.diagnostics));
    assert.ok(loadSharedWithAvsc(result.artifacts).length > 5, projection);
    assert.equal(loadSharedWithAvsc(byLoadOrder(result.artifacts)), loadSharedWithAvsc(result.artifacts));
  }
});

Shared('should keep constructor records in their module file with constructor_namespace=lowercase-type', () => {
  const result = generateAvro(chain, { dependencies: 'shared', constructor_namespace: 'lowercase-type' });
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  assert.equal(result.artifacts.map((a) => a.path), ['shared/base/ids.avsc', 'acme/app/base.avsc', 'acme/app/top.avsc', LOAD_ORDER_PATH]);
  const ids = JSON.parse(result.artifacts[0].content);
  assert.equal(ids.map((d: { name: string; namespace: string }) => `${d.namespace}.${d.name}`), ['shared.base.ids.zip.Zip', 'shared.base.ids.Zip']);
  assert.ok(loadSharedWithAvsc(byLoadOrder(result.artifacts)).includes('shared.base.ids.zip.Zip'));
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
