/** `mep init --kind frontend`: a tiny language (`type Name = Int`) compiled to Morphir IR. */
import { testPreamble, type KindTemplate } from './kind.ts';

/** The sample project's one module. */
export const SAMPLE_TINY = '-- The orders of the sample project.\ntype OrderId = Int\ntype Note = String\n';

const source = (id: string): string => `/**
 * ${id}: an MEP 0.1 frontend for "tiny", a language of type aliases, one module per file:
 *
 *   -- a comment
 *   type OrderId = Int
 *
 * compiled to a Morphir IR (formatVersion 3) Library. The module's name is the document's path
 * below the source root (\`Acme/Orders.tiny\` → Acme.Orders). \`npm run build\` makes the sandboxed
 * wasm module, \`npm run build:process\` a Node process script; the source is the same.
 */
import { defineExtension, diagnostic } from 'mep-runtime/guest-pdk';

/** A Morphir name: its words, \`["order", "id"]\`. */
type Name = string[];

const words = (text: string): Name => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\\s._/-]+/).filter(Boolean).map((w) => w.toLowerCase());
const sdk = (module: string, name: string): unknown => ['Reference', {}, [[['morphir'], ['s', 'd', 'k']], [[module]], [name]], []];
/** The tiny types and the Morphir SDK types they stand for. */
const TYPES: Record<string, unknown> = { Int: sdk('basics', 'int'), Float: sdk('basics', 'float'), Bool: sdk('basics', 'bool'), String: sdk('string', 'string') };
const LINE = /^type\\s+([A-Z][A-Za-z0-9]*)\\s*=\\s*([A-Za-z0-9]+)\\s*$/;

/** The document's path below the root, without its extension: the module's name. */
function modulePath(uri: string, root: string | undefined): Name[] {
  const base = root === undefined ? '' : root.endsWith('/') ? root : \`\${root}/\`;
  const relative = base !== '' && uri.startsWith(base) ? uri.slice(base.length) : uri.slice(uri.lastIndexOf('/') + 1);
  return decodeURIComponent(relative).replace(/\\.tiny$/, '').split('/').map(words);
}

export default defineExtension({
  info: { id: '${id}', name: '${id}', version: '0.1.0' },
  frontend: {
    languages: [{ id: 'tiny', fileExtensions: ['.tiny'] }],
    irVersions: ['3'],
    multiDocument: true,
    compile({ sources, package: pkg }) {
      const diagnostics: ReturnType<typeof diagnostic>[] = [];
      const modules = sources.documents.map((document) => {
        const types: [Name, unknown][] = [];
        document.text.split('\\n').forEach((line, index) => {
          const text = line.trim();
          if (text === '' || text.startsWith('--')) return;
          const match = LINE.exec(text);
          const aliased = match ? TYPES[match[2] as string] : undefined;
          if (!match || aliased === undefined) {
            // Source errors are diagnostics at the line, never protocol errors.
            const message = match ? \`Unknown type \${match[2]}; use one of \${Object.keys(TYPES).join(', ')}.\` : 'Expected a line such as: type OrderId = Int';
            diagnostics.push(diagnostic('error', message, { code: 'TINY001', at: { uri: document.uri, line: index, character: 0, endCharacter: line.length } }));
            return;
          }
          types.push([words(match[1] as string), { access: 'Public', value: { doc: '', value: ['TypeAliasDefinition', [], aliased] } }]);
        });
        return [modulePath(document.uri, sources.root), { access: 'Public', value: { types, values: [], doc: null } }];
      });
      if (diagnostics.length > 0) return { irVersion: '3', ir: null, diagnostics };
      const packageName = pkg.name.split(/[/.]/).map(words);
      const names = modules.map(([path]) => (path as Name[]).map((name) => name.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')).join('.'));
      return { irVersion: '3', ir: { formatVersion: 3, distribution: ['Library', packageName, [], { modules }] }, modules: names };
    },
  },
});
`;

const test = `${testPreamble('compileRequest, openExtension, sampleProject')}
for (const runtime of ['wasm', 'process']) {
  test(\`compiles tiny documents to Morphir IR (\${runtime})\`, async () => {
    const extension = await openExtension(entry, { runtime });
    try {
      // The sample project on disk: every .tiny file, the folder as the source root.
      const project = await extension.compile(await sampleProject(here('sample/src'), { languageId: 'tiny', fileExtensions: ['.tiny'], packageName: 'acme.orders' }));
      assert.equal(project.success, true, JSON.stringify(project.diagnostics));
      const [path, module] = project.ir.distribution[3].modules[0];
      assert.deepEqual(path, [['orders']]);
      assert.deepEqual(project.modules, ['Orders']);
      assert.deepEqual(module.value.types.map(([name]) => name), [['order', 'id'], ['note']]);
      // Documents in memory: the module's name is the path below the source root.
      const nested = await extension.compile(compileRequest({ languageId: 'tiny', files: { 'Acme/Billing.tiny': 'type Amount = Float\\n' } }));
      assert.deepEqual(nested.ir.distribution[3].modules[0][0], [['acme'], ['billing']]);
      // A source error: a diagnostic at the document and line, not a protocol error.
      const request = compileRequest({ languageId: 'tiny', files: { 'Bad.tiny': 'type Ok = Int\\ntype Id = Integer\\n' } });
      const broken = await extension.compile(request);
      assert.equal(broken.success, false);
      assert.equal(broken.diagnostics[0].code, 'TINY001');
      assert.equal(broken.diagnostics[0].location.uri, request.sources.documents[0].uri);
      assert.equal(broken.diagnostics[0].location.range.start.line, 1);
    } finally {
      await extension.close();
    }
  });
}
`;

export const frontend: KindTemplate = {
  summary: 'a Morphir frontend for "tiny", a language of type aliases (`type OrderId = Int`), compiled to Morphir IR',
  source,
  test,
  samples: () => ({
    'sample/morphir.json': `${JSON.stringify({ name: 'acme.orders', sourceDirectory: 'src' }, null, 2)}\n`,
    'sample/src/Orders.tiny': SAMPLE_TINY,
  }),
  call: 'npx mep compile sample --extension dist/extension.wasm',
  installed: () => '`mep compile <project> --lang tiny` finds it',
};
