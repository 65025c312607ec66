/** `mep init --kind validator`: Morphir IR → a diagnostic for each module that defines nothing. */
import { sampleFiles } from './ir-sample.ts';
import { testPreamble, type KindTemplate } from './kind.ts';

const source = (id: string): string => `/**
 * ${id}: an MEP 0.1 validator that reports every module of a Morphir IR that defines no type and
 * no value — a warning, or an error with the option \`emptyModules: "error"\`. \`npm run build\`
 * makes the sandboxed wasm module, \`npm run build:process\` a Node process script.
 */
import { defineExtension, diagnostic } from 'mep-runtime/guest-pdk';

/** A Morphir name: its words, \`["legacy"]\`. */
type Name = string[];
type Module = [Name[], { value?: { types?: unknown[]; values?: unknown[] } }];

const title = (name: Name): string => name.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');

export default defineExtension({
  info: { id: '${id}', name: '${id}', version: '0.1.0' },
  validator: {
    irVersions: ['3'],
    validate({ ir, options }) {
      const distribution = (ir as { distribution?: unknown }).distribution;
      if (!Array.isArray(distribution) || distribution[0] !== 'Library') {
        // Domain failures are results with diagnostics, never protocol errors.
        return { diagnostics: [diagnostic('error', 'Expected a Morphir IR Library distribution.', { code: 'EXT001' })] };
      }
      const severity = options?.emptyModules === 'error' ? 'error' : 'warning';
      const packageName = (distribution[1] as Name[]).map(title).join('.');
      const modules = (distribution[3] as { modules?: Module[] }).modules ?? [];
      const empty = modules.filter(([, { value }]) => (value?.types ?? []).length === 0 && (value?.values ?? []).length === 0);
      // \`success\` follows from the diagnostics: false when any is an error.
      return {
        diagnostics: empty.map(([path]) => {
          const name = \`\${packageName}.\${path.map(title).join('.')}\`;
          return diagnostic(severity, \`Module \${name} defines no type and no value; remove it or give it a definition.\`, { code: 'EXT002', data: { module: name } });
        }),
      };
    },
  },
});
`;

const test = `${testPreamble('irRequest, minimalIr, openExtension, readIr, sampleIr')}const sample = await readIr(here('sample/morphir-ir.json'));

for (const runtime of ['wasm', 'process']) {
  test(\`reports the modules that define nothing (\${runtime})\`, async () => {
    const extension = await openExtension(entry, { runtime });
    try {
      const result = await extension.validate(irRequest(sample));
      assert.equal(result.success, true, 'warnings only');
      assert.deepEqual(result.diagnostics.map((d) => [d.severity, d.code, d.data.module]), [['warning', 'EXT002', 'Acme.Customer.Legacy']]);
      // The option makes them errors, and the validation fails.
      const strict = await extension.validate(irRequest(sample, { emptyModules: 'error' }));
      assert.equal(strict.success, false);
      assert.equal(strict.diagnostics[0].severity, 'error');
      assert.deepEqual((await extension.validate(irRequest(sampleIr()))).diagnostics, []);
      assert.equal((await extension.validate(irRequest(minimalIr({ modules: ['a', 'b'] })))).diagnostics.length, 2);
      // Not a library: a diagnostic, not a protocol error.
      const refused = await extension.validate({ ir: { formatVersion: 3, distribution: ['Application'] } });
      assert.equal(refused.success, false);
      assert.equal(refused.diagnostics[0].code, 'EXT001');
    } finally {
      await extension.close();
    }
  });
}
`;

export const validator: KindTemplate = {
  summary: 'a Morphir IR validator that reports the modules that define no type and no value',
  source,
  test,
  samples: sampleFiles,
  call: 'npx mep call dist/extension.wasm validate --ir sample/morphir-ir.json',
  installed: () => '`mep validate` runs it',
};
