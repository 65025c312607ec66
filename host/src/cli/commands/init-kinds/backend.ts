/** `mep init --kind backend` (the default): Morphir IR → a catalog of each module's types and values. */
import { sampleIr } from '../../../testing/sample-ir.ts';
import { testPreamble, type KindTemplate } from './kind.ts';

/** The catalog the template's backend writes for the sample model (its test checks exactly this). */
export const SAMPLE_CATALOG = 'module Acme.Customer.Customer\n  type Customer\n  value findCustomer\n  value schemaVersion\n';

const source = (id: string): string => `/**
 * ${id}: an MEP 0.1 backend that lists the types and values of each module of a Morphir IR.
 * \`npm run build\` makes the sandboxed wasm module, \`npm run build:process\` a Node process
 * script; the source is the same.
 */
import { defineExtension, diagnostic, textArtifact } from 'mep-runtime/guest-pdk';

/** A Morphir name: its words, \`["find", "customer"]\`. */
type Name = string[];
type Module = [Name[], { value?: { types?: [Name, unknown][]; values?: [Name, unknown][] } }];

const title = (name: Name): string => name.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
const camel = (name: Name): string => name.map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join('');

export default defineExtension({
  info: { id: '${id}', name: '${id}', version: '0.1.0' },
  backend: {
    targets: ['${id}'],
    irVersions: ['3'],
    generate({ ir }, ctx) {
      ctx.progress('begin', 'Listing types and values');
      const distribution = (ir as { distribution?: unknown }).distribution;
      if (!Array.isArray(distribution) || distribution[0] !== 'Library') {
        // Domain failures are results with diagnostics, never protocol errors.
        return { artifacts: [], diagnostics: [diagnostic('error', 'Expected a Morphir IR Library distribution.', { code: 'EXT001' })] };
      }
      const packageName = (distribution[1] as Name[]).map(title).join('.');
      const modules = (distribution[3] as { modules?: Module[] }).modules ?? [];
      const lines = modules.flatMap(([path, { value }]) => [
        \`module \${packageName}.\${path.map(title).join('.')}\`,
        ...(value?.types ?? []).map(([name]) => \`  type \${title(name)}\`),
        ...(value?.values ?? []).map(([name]) => \`  value \${camel(name)}\`),
      ]);
      ctx.progress('end');
      return { artifacts: [textArtifact('catalog.txt', \`\${lines.join('\\n')}\\n\`)] };
    },
  },
});
`;

const test = `${testPreamble('artifactText, minimalIr, openExtension, readIr')}const sample = await readIr(here('sample/morphir-ir.json'));

for (const runtime of ['wasm', 'process']) {
  test(\`lists the types and values of the sample model (\${runtime})\`, async () => {
    const extension = await openExtension(entry, { runtime });
    try {
      const result = await extension.generate({ ir: sample });
      assert.equal(result.success, true);
      assert.equal(artifactText(result, 'catalog.txt'), ${JSON.stringify(SAMPLE_CATALOG)});
      // Not a library: a diagnostic, not a protocol error.
      const refused = await extension.generate({ ir: { formatVersion: 3, distribution: ['Application'] } });
      assert.equal(refused.success, false);
      assert.equal(refused.diagnostics[0].code, 'EXT001');
      assert.equal(artifactText(await extension.generate({ ir: minimalIr({ packageName: 'acme.empty' }) }), 'catalog.txt'), '\\n');
    } finally {
      await extension.close();
    }
  });
}
`;

export const backend: KindTemplate = {
  summary: 'a Morphir IR backend that lists the types and values of each module (`catalog.txt`)',
  source,
  test,
  samples: () => ({ 'sample/morphir-ir.json': `${JSON.stringify(sampleIr(), null, 2)}\n` }),
  call: 'npx mep call dist/extension.wasm generate --ir sample/morphir-ir.json',
  installed: (id) => `\`mep generate --target ${id}\` finds it`,
};
