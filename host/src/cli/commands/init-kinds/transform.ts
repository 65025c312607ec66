/** `mep init --kind transform`: Morphir IR → the same IR without the modules that define nothing. */
import { sampleFiles } from './ir-sample.ts';
import { testPreamble, type KindTemplate } from './kind.ts';

const source = (id: string): string => `/**
 * ${id}: an MEP 0.1 transform that removes every module of a Morphir IR that defines no type and
 * no value, and returns the rest unchanged. \`npm run build\` makes the sandboxed wasm module,
 * \`npm run build:process\` a Node process script.
 */
import { defineExtension, diagnostic } from 'mep-runtime/guest-pdk';

type Module = [string[][], { value?: { types?: unknown[]; values?: unknown[] } }];

export default defineExtension({
  info: { id: '${id}', name: '${id}', version: '0.1.0' },
  transform: {
    irVersions: ['3'],
    transform({ ir }, ctx) {
      const distribution = (ir as { distribution?: unknown }).distribution;
      if (!Array.isArray(distribution) || distribution[0] !== 'Library') {
        // Domain failures are results with diagnostics, never protocol errors.
        return { ir: null, diagnostics: [diagnostic('error', 'Expected a Morphir IR Library distribution.', { code: 'EXT001' })] };
      }
      const definition = distribution[3] as { modules?: Module[] };
      const modules = definition.modules ?? [];
      const kept = modules.filter(([, { value }]) => (value?.types ?? []).length > 0 || (value?.values ?? []).length > 0);
      ctx.log('info', \`removed \${modules.length - kept.length} empty module(s)\`);
      const out = [...distribution];
      out[3] = { ...definition, modules: kept };
      return { irVersion: '3', ir: { ...ir, distribution: out } };
    },
  },
});
`;

const test = `${testPreamble('irRequest, minimalIr, openExtension, readIr, sampleIr')}const sample = await readIr(here('sample/morphir-ir.json'));

for (const runtime of ['wasm', 'process']) {
  test(\`removes the modules that define nothing (\${runtime})\`, async () => {
    const extension = await openExtension(entry, { runtime });
    try {
      const result = await extension.transform(irRequest(sample));
      assert.equal(result.success, true);
      assert.equal(result.irVersion, '3');
      // The sample's empty module is gone; everything else is as it was.
      assert.deepEqual(result.ir, sampleIr());
      assert.deepEqual((await extension.transform(irRequest(minimalIr({ modules: ['a', 'b'] })))).ir.distribution[3].modules, []);
      // Not a library: a diagnostic, not a protocol error.
      const refused = await extension.transform({ ir: { formatVersion: 3, distribution: ['Application'] } });
      assert.equal(refused.success, false);
      assert.equal(refused.diagnostics[0].code, 'EXT001');
    } finally {
      await extension.close();
    }
  });
}
`;

export const transform: KindTemplate = {
  summary: 'a Morphir IR transform that removes the modules that define no type and no value',
  source,
  test,
  samples: sampleFiles,
  call: 'npx mep call dist/extension.wasm transform --ir sample/morphir-ir.json',
  installed: () => '`mep transform` runs it',
};
